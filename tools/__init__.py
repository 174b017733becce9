"""Developer tools kept out of the installed package (the pipeline never imports them)."""
