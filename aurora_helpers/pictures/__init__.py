"""Pictures: shardings and meshes, memory layouts, the machine, Pallas blocks.

- :mod:`.sharding`: which device holds which block of an array, and a mesh's devices;
- :mod:`.layout`: the cost of reading a layout along and across its rows;
- :mod:`.machine`: the machine :func:`~aurora_helpers.probe` reports, as a diagram;
- :mod:`.pallas`: the blocks a Pallas grid's programs touch;
- :mod:`.explorer`: a sharding explorer (a mesh, a shape and a spec in; blocks, bytes and, for
  ``x @ w``, the compiled program's collectives out), its ipywidgets panel and a static gallery.

Imports the core at the package's top (``_figures`` for matplotlib) and, for the explorer only,
the ``compiled`` folder (collectives and their cost model), never another folder.
"""
