"""simgold: trustworthy word-similarity gold standards and embedding evaluation.

The notebook API (docs in README.md):

* ``simgold.evaluate(model, dataset)``: Spearman, Pearson and Kendall with 95% CIs and OOV shares;
* ``simgold.agreement(df, item=, rater=, score=)``: inter-rater agreement of long-format ratings;
* ``simgold.clean(config_or_dataset)``: the canonical tables and the rejects ledger.

``import simgold`` stays cheap (every Snakemake job imports the package): the API and its
dependencies load on first use (PEP 562). ``simgold.agreement`` and ``simgold.clean`` are also the
names of library modules; the package attribute is callable as the API function and reaches the
module's names as attributes (``simgold.agreement.agreement_report``), whichever was imported first.
"""

import importlib
import importlib.util
import sys
import types

__version__ = "0.1.0"
__all__ = ["agreement", "clean", "evaluate", "__version__"]

_API = ("agreement", "clean", "evaluate")


class _Entry:
    """A package attribute that is the API function when called and the module of the same name
    (if there is one) for every other attribute."""

    __slots__ = ("_function", "_module")

    def __init__(self, function: str, module: str):
        object.__setattr__(self, "_function", function)
        object.__setattr__(self, "_module", module)

    def _target(self):
        return getattr(importlib.import_module(f"{__name__}.api"), self._function)

    def __call__(self, *args, **kwargs):
        return self._target()(*args, **kwargs)

    def _lib(self):
        return importlib.import_module(self._module)

    def __getattr__(self, name):
        return getattr(self._lib(), name)

    def __setattr__(self, name, value):
        setattr(self._lib(), name, value)

    def __delattr__(self, name):
        delattr(self._lib(), name)

    @property
    def __doc__(self):
        return self._target().__doc__

    @property
    def __signature__(self):
        import inspect

        return inspect.signature(self._target())

    def __repr__(self):
        return (
            f"<simgold.{self._function}: the API function{' and the module ' + self._module if self._module else ''}>"
        )


class _Package(types.ModuleType):
    def __setattr__(self, name, value):
        # importing the module simgold.agreement sets the package attribute: keep the API entry
        if name in _API and isinstance(value, types.ModuleType):
            value = _Entry(name, value.__name__)
        super().__setattr__(name, value)


def __getattr__(name):
    if name in _API:
        module = f"{__name__}.{name}"
        if importlib.util.find_spec(module) is None:  # no module of that name: the function itself
            value = getattr(importlib.import_module(f"{__name__}.api"), name)
        else:
            value = _Entry(name, module)
        globals()[name] = value
        return value
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def __dir__():
    return sorted(set(globals()) | set(_API))


sys.modules[__name__].__class__ = _Package
