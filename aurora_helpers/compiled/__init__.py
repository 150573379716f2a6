"""Reading what JAX built: jaxprs, compiled HLO, its collectives and schedule, and their cost.

- :mod:`.jaxpr_inspect`: equations, primitives, FFI and Pallas calls in a jaxpr;
- :mod:`.perturb`: whether an operation decides a program's result (its outputs changed);
- :mod:`._hlo_text`: the parser of compiled HLO text that the next two share;
- :mod:`.collectives`: the collectives of a compiled program; :mod:`.hlo_schedule`: its order;
- :mod:`.comm_costs` and :mod:`.topologies`: what those collectives move over an interconnect;
- :mod:`.compiles`: how many programs a function compiled;
- :mod:`.ffi_build`: building the FFI kernels of appendix A1 with the system's compiler.

Imports only the core at the package's top, never another folder.
"""
