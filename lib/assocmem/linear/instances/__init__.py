"""Part I instances: the memory problem and how it is drawn.

- :mod:`.problems` — the OP/DP instance (``MemoryProblem``), score matrices, recall checks.
- :mod:`.sampling` — instances with i.i.d. ``N(0, I/d)`` embeddings, one seed each; memory checks.
"""
