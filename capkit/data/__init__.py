"""What comes in: files (:mod:`~capkit.data.io`), the types of original vs synthetic
(:mod:`~capkit.data.align`, :mod:`~capkit.data.synorig`, :mod:`~capkit.data.labels`) and the
papers' data sets (:mod:`~capkit.data.datasets`). Names only."""

__all__: list[str] = []
