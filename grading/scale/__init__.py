"""Grading a large class: parallel grading servers and Dask (farm), warm kernels forked in one
sandbox per submission (warm_kernels, forker), and a PostgreSQL gradebook (postgres)."""
