"""Search by meaning: embedders, vectors, fusion and Store.search modes."""
