"""What the Snakemake rules need from the library: which dataset goes through which stage
(``routing``), the job glue of the scripts (``job``), thread pools (``threads``)."""
