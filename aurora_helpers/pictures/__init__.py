"""Pictures: shardings and meshes, memory layouts, the machine, Pallas blocks.

- :mod:`.sharding`: which device holds which block of an array, and a mesh's devices;
- :mod:`.layout`: the cost of reading a layout along and across its rows;
- :mod:`.machine`: the machine :func:`~aurora_helpers.probe` reports, as a diagram;
- :mod:`.pallas`: the blocks a Pallas grid's programs touch.

Imports only the core at the package's top (``_figures`` for matplotlib), never another folder.
"""
