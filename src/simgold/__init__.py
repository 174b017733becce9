"""simgold: trustworthy word-similarity gold standards and embedding evaluation."""

__version__ = "0.1.0"
