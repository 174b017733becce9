"""One module per stage of the workflow, named as its rule file (``workflow/rules/X.smk``) and
script (``workflow/scripts/X.py``): each takes tables and returns tables. Uses ``simgold.io`` and
``simgold.stats``."""
