"""Reading and writing: the config and its schema, raw-table readers and layouts, embedding files
and packages, canonical tables and provenance, the vector store, and the paths of every result
file. Uses ``simgold.stats``, never a stage."""
