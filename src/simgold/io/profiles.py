"""Every config file a ``snakemake`` command line makes Snakemake read, found and checked before it starts.

Snakemake reads the workflow's ``config/config.yaml``, the files given with ``--configfile`` (or
``--configfiles``), and the ``configfile:`` of its profiles: those given with ``--profile`` (or
``$SNAKEMAKE_PROFILE``) and the workflow profile (``--workflow-profile``, by default
``profiles/default`` beside the Snakefile). It merges them into its config before the Snakefile's own
check runs, and reads whatever the path holds: a device or a FIFO until memory runs out or forever.
:func:`check_run_configs` finds them as Snakemake does and refuses, in one line naming the file,
anything that is not a regular readable file, and (through :func:`simgold.io.config.check_config_files`)
an alias bomb or a key given twice; the profiles themselves are read with the same bounded loader.
"""

from __future__ import annotations

import errno
import os
import re
import stat
from importlib import metadata
from pathlib import Path

from simgold.errors import ConfigError, SimgoldError
from simgold.io.config import check_config_files, load_config

__all__ = [
    "MAX_CONFIG_BYTES",
    "file_problem",
    "command_line_config_files",
    "profile_files",
    "run_profiles",
    "profile_settings",
    "profile_config_files",
    "check_run_configs",
]

#: the largest config or profile file read (a real one is a few kilobytes): a larger one is refused
#: before it is read, so that no file can fill the memory however it is named
MAX_CONFIG_BYTES = 16 * 2**20

#: the files Snakemake looks for in a profile folder: profile.yaml, config.yaml, profile.v9+.yaml, ...
_PROFILE_FILE = re.compile(r"(?:profile|config)(?:\.v(?P<major>\d+)\+)?.yaml")
#: where Snakemake looks for a workflow without --snakefile
_SNAKEFILES = ("Snakefile", "snakefile", "workflow/Snakefile", "workflow/snakefile")
#: the suffixes of a config file: a missing value after --configfile without one is likely a target
_CONFIG_SUFFIXES = (".yaml", ".yml", ".json")
#: what a path that is not a regular file is
_KINDS = (
    (stat.S_ISDIR, "a directory"),
    (stat.S_ISCHR, "a character device"),
    (stat.S_ISBLK, "a block device"),
    (stat.S_ISFIFO, "a FIFO (a named pipe)"),
    (stat.S_ISSOCK, "a socket"),
)


def file_problem(path: str | Path) -> str | None:
    """Why ``path`` cannot be read as a config file, or None when it can: it does not exist, is a
    symbolic link loop, is not a regular file (a device or a FIFO would be read forever or block),
    cannot be read, or is larger than :data:`MAX_CONFIG_BYTES`. Nothing is opened.

    Parameters
    ----------
    path : str or pathlib.Path
        A config or profile file.

    Returns
    -------
    str or None
        The problem, or None.

    Examples
    --------
    >>> file_problem("/dev/zero")
    'is a character device, not a regular file'
    >>> file_problem("no/such.yaml")
    'does not exist'
    """
    try:
        info = os.stat(path)
    except OSError as err:
        if err.errno == errno.ELOOP:
            return "is a symbolic link loop"
        if err.errno in (errno.ENOENT, errno.ENOTDIR):
            return "is a symbolic link to nothing" if os.path.islink(path) else "does not exist"
        return f"cannot be read ({err.strerror})"
    for test, kind in _KINDS:
        if test(info.st_mode):
            return f"is {kind}, not a regular file"
    if not stat.S_ISREG(info.st_mode):
        return "is not a regular file"
    if not os.access(path, os.R_OK):
        return "cannot be read (permission denied)"
    if info.st_size > MAX_CONFIG_BYTES:
        return f"holds {info.st_size:,} bytes; a config is at most {MAX_CONFIG_BYTES:,}"
    return None


def _matches(arg: str, full: str, shortest: str) -> tuple[bool, str | None]:
    """Whether ``arg`` is option ``full`` (or an abbreviation argparse accepts), and its ``=value``."""
    name, has_value, value = arg.partition("=")
    return len(name) >= len(shortest) and full.startswith(name), (value if has_value else None)


def _option_values(args: list[str], full: str, shortest: str, short: str | None = None) -> list[str]:
    """The values of a single-value option, in ``--opt v``, ``--opt=v`` or (``short``) ``-s v``, ``-sv``."""
    values = []
    for i, arg in enumerate(args):
        if arg == "--":
            break
        given, value = _matches(arg, full, shortest) if arg.startswith("--") else (False, None)
        if short and arg.startswith(short) and not arg.startswith("--"):
            given, value = True, (arg[len(short) :].removeprefix("=") or None)
        if given:
            value = value if value is not None else (args[i + 1] if i + 1 < len(args) else None)
            if value is not None:
                values.append(value)
    return values


def _given_exactly(args: list[str], options: tuple[str, ...]) -> bool:
    """Whether an option is on the command line in a spelling that keeps a profile's value out
    (configargparse compares whole names)."""
    names = []
    for arg in args:
        if arg == "--":
            break
        names.append(arg.split("=", 1)[0] if arg.startswith("-") else arg)
    return any(option in names for option in options)


def command_line_config_files(args: list[str]) -> list[str]:
    """The config files given on a snakemake command line: ``--configfile a.yaml b.yaml``,
    ``--configfiles ...``, ``--configfile=a.yaml`` (or an abbreviation argparse accepts).

    Parameters
    ----------
    args : list of str
        The snakemake arguments.

    Returns
    -------
    list of str
        The files, in order.

    Examples
    --------
    >>> command_line_config_files(["-n", "--configfile", "a.yaml", "b.yaml", "--configfiles=c.yaml", "all"])
    ['a.yaml', 'b.yaml', 'c.yaml']
    """
    files, taking = [], False
    for arg in args:
        if arg == "--":  # only targets follow
            break
        if not arg.startswith("-"):
            if taking:  # like argparse, "+" takes every value up to the next option
                files.append(arg)
            continue
        # --configfile, --configfiles, or a shorter prefix should argparse accept it (3.11 calls it ambiguous)
        is_configfile, value = _matches(arg, "--configfiles", "--configf")
        taking = is_configfile and value is None
        if is_configfile and value is not None:
            files.append(value)
    return files


def _search_dirs() -> list[str]:
    """Where Snakemake looks for ``--profile NAME``: here, then the user's and the site's folders."""
    try:
        from platformdirs import AppDirs  # Snakemake's own folders (comes with snakemake, which run starts)
    except ImportError:
        return [os.getcwd()]
    dirs = AppDirs("snakemake", "snakemake")
    return [os.getcwd(), dirs.user_config_dir, dirs.site_config_dir]


def profile_files(profile: str, search_dirs: list[str] | None = None) -> list[Path]:
    """The YAML file Snakemake reads for a profile, found as Snakemake 9 finds it: a path to the file
    itself, a folder (a path, or a name under ``search_dirs``) holding ``profile.yaml`` or
    ``config.yaml`` (or ``profile.v9+.yaml``, the highest version Snakemake accepts).

    Parameters
    ----------
    profile : str
        As given to ``--profile`` or ``--workflow-profile``.
    search_dirs : list of str, optional
        Where a name is looked for; by default the working directory and Snakemake's user and site
        config folders (``~/.config/snakemake``, ``/etc/xdg/snakemake`` on Linux).

    Returns
    -------
    list of pathlib.Path
        The file, or both when a folder holds two of equal rank (Snakemake then takes either); none
        when there is no such profile (Snakemake says so itself).
    """
    if os.path.exists(profile):
        if os.path.isfile(profile):
            return [Path(profile)]
        dirs, profile = [os.path.dirname(profile) or "."], os.path.basename(profile)
    else:
        dirs = _search_dirs() if search_dirs is None else search_dirs
    try:
        major = int(metadata.version("snakemake").split(".")[0])
    except (metadata.PackageNotFoundError, ValueError):
        major = None
    for folder in dirs:
        candidate = Path(folder) / profile
        if candidate.is_file():
            return [candidate]
        if candidate.is_dir():
            found = {m.group(0): int(m["major"] or 0) for m in map(_PROFILE_FILE.fullmatch, os.listdir(candidate)) if m}
            found = {name: v for name, v in found.items() if major is None or v <= major}
            if found:
                return [candidate / name for name in sorted(found) if found[name] == max(found.values())]
    return []


def _workflow_profile(args: list[str]) -> str | None:
    """The workflow profile Snakemake takes: ``--workflow-profile`` or ``profiles/default`` (here or
    beside the Snakefile), as ``snakemake.cli.parse_args`` resolves it."""
    given = _option_values(args, "--workflow-profile", "--wo")
    if given and given[-1] == "none":
        return None
    snakefiles = _option_values(args, "--snakefile", "--sn", short="-s")
    snakefile = snakefiles[-1] if snakefiles else next((s for s in _SNAKEFILES if Path(s).exists()), None)
    profile = Path(given[-1]) if given else None
    if snakefile is not None and (profile is None or not profile.is_file()):
        profile = profile or Path("default")
        candidates = [profile, Path("profiles") / profile]
        if "://" not in snakefile:  # a Snakefile given as a URL has no folder here
            candidates.append(Path(snakefile).parent / "profiles" / profile)
        profile = next((c for c in candidates if c.exists()), None)
    return None if profile is None else str(profile)


def run_profiles(args: list[str], environ: dict | None = None) -> list[Path]:
    """The profile files a snakemake command line makes Snakemake read, in its order: each
    ``--profile`` (else ``$SNAKEMAKE_PROFILE``), then the workflow profile; a later one's keys win.

    Parameters
    ----------
    args : list of str
        The snakemake arguments.
    environ : dict, optional
        The environment (default ``os.environ``).

    Returns
    -------
    list of pathlib.Path
        The profile files.
    """
    environ = os.environ if environ is None else environ
    profiles = _option_values(args, "--profile", "--pro")
    if not _given_exactly(args, ("--profile",)) and environ.get("SNAKEMAKE_PROFILE"):
        value = environ["SNAKEMAKE_PROFILE"]
        # configargparse reads a list in brackets ([a, b]) as several values
        listed = value.startswith("[") and value.endswith("]")
        profiles += [v.strip().strip("\"'") for v in value[1:-1].split(",")] if listed else [value]
    profiles = [] if profiles == ["none"] else [p for p in profiles if p and p != "none"]
    workflow = _workflow_profile(args)
    return [file for profile in [*profiles, *([workflow] if workflow else [])] for file in profile_files(profile)]


def profile_settings(profile: str | Path) -> dict:
    """A profile's settings as Snakemake reads them: with the config's bounded loader (an alias bomb
    or a key given twice is refused), then, for a profile that sets ``__use_yte__: true``, through
    yte's template engine as Snakemake's profile parser runs it (its ``?if`` blocks and ``?``
    expressions decide which keys there are).

    Parameters
    ----------
    profile : str or pathlib.Path
        A profile file (:func:`profile_files`).

    Returns
    -------
    dict
        The settings (empty where the file holds no mapping: Snakemake says so itself).

    Raises
    ------
    simgold.errors.ConfigError
        The profile is not a readable regular file, holds an alias bomb or a key given twice, or
        its yte template fails.

    Examples
    --------
    >>> import tempfile
    >>> with tempfile.TemporaryDirectory() as tmp:
    ...     path = Path(tmp, "profile.yaml")
    ...     _ = path.write_text("__use_yte__: true\\n?if True:\\n  configfile: ?'conf/' + 'a.yaml'\\ncores: 2\\n")
    ...     profile_settings(path)
    {'configfile': 'conf/a.yaml', 'cores': 2}
    """
    problem = file_problem(profile)
    if problem:
        raise ConfigError(f"profile {profile}", problem)
    settings = load_config(profile)
    if isinstance(settings, dict) and settings.get("__use_yte__") is True:
        import yte  # Snakemake's profile templates: it comes with snakemake, which run starts

        try:
            with open(profile, encoding="utf-8") as stream:
                settings = yte.process_yaml(stream, require_use_yte=True)
        except Exception as err:  # a template's expressions can raise anything: one line, as Snakemake's
            raise ConfigError(f"profile {profile}", f"its yte template fails: {err}") from None
    return settings if isinstance(settings, dict) else {}


def profile_config_files(profile: str | Path) -> list[str]:
    """The config files a profile names (``configfile:`` or ``configfiles:``), where Snakemake looks
    for them: a single path in the profile's folder if it is there, else as given (from the working
    directory), after ``~`` and ``$VARIABLES`` are expanded; the items of a list as given. The
    profile is read with the config's bounded loader, so that an alias bomb in it is refused.

    Parameters
    ----------
    profile : str or pathlib.Path
        A profile file (:func:`profile_files`).

    Returns
    -------
    list of str
        The config files.

    Raises
    ------
    simgold.errors.ConfigError
        The profile is not a readable regular file, holds an alias bomb or a key given twice.
    """
    return _named_config_files(profile_settings(profile), Path(profile).parent)


def _named_config_files(settings: dict, folder: Path) -> list[str]:
    """The ``configfile:`` / ``configfiles:`` of a profile's settings, found as Snakemake finds them."""
    files = []
    for key in ("configfile", "--configfile", "configfiles", "--configfiles"):
        value = settings.get(key)
        if isinstance(value, list):
            files += [str(item) for item in value]
        elif value is not None and value != "" and not isinstance(value, dict):
            path = os.path.expanduser(os.path.expandvars(str(value)))
            files.append(str(folder / path) if (folder / path).exists() else path)
    return files


def _target_hint(path: str) -> None:
    if not os.path.lexists(path) and not path.lower().endswith(_CONFIG_SUFFIXES):
        raise SimgoldError(
            f"simgold run: {path!r} follows --configfile, so Snakemake would read it as a config file, and"
            f" there is no such file; put targets before --configfile or after `--`"
            f" (simgold run {path} --configfile FILE, or simgold run --configfile FILE -- {path})"
        )


def check_run_configs(args: list[str], environ: dict | None = None) -> list[str]:
    """Check every config file a snakemake command line makes Snakemake read, before it starts:
    ``config/config.yaml`` (if there; under ``--directory`` where one is given), each ``--configfile``, and, unless the command line gives
    ``--configfile``, the ``configfile:`` of the last profile naming one (:func:`run_profiles`).

    Parameters
    ----------
    args : list of str
        The snakemake arguments.
    environ : dict, optional
        The environment (default ``os.environ``), for ``$SNAKEMAKE_PROFILE``.

    Returns
    -------
    list of str
        The config files checked, in order.

    Raises
    ------
    simgold.errors.SimgoldError
        In one line naming the file: a value after ``--configfile`` that looks like a target; a file
        that does not exist, is a link loop, is not a regular readable file or is too large; an
        alias bomb or a key given twice (in a config file or a profile).
    """
    given = command_line_config_files(args)
    files = [(path, "") for path in given]
    named: list[tuple[str, str]] = []
    workdir, profile_dir = _option_values(args, "--directory", "--di", short="-d"), []
    for profile in run_profiles(args, environ):
        settings = profile_settings(profile)  # read once: a yte template is evaluated once
        in_profile = [
            (path, f" (configfile of profile {profile})")
            for path in _named_config_files(settings, Path(profile).parent)
        ]
        named = in_profile or named  # configargparse: the last profile naming one wins
        directory = settings.get("directory")
        profile_dir = [str(directory)] if directory else profile_dir  # the command line's wins
    if not _given_exactly(args, ("--configfile", "--configfiles")):
        files += named
    # the Snakefile's `configfile:` is read in the working directory (--directory), the others from here
    workdir = workdir or profile_dir
    own = os.path.normpath(os.path.join(workdir[-1] if workdir else ".", "config/config.yaml"))
    if os.path.lexists(own):  # else Snakemake says it is missing
        files.insert(0, (own, ""))
    for path, source in files:
        if not source and path in given:
            _target_hint(path)
        problem = file_problem(path)
        if problem:
            raise ConfigError(f"file {path}{source}", problem)
        try:
            check_config_files([path])
        except SimgoldError as err:
            raise SimgoldError(f"{err}{source}") from None
    return [path for path, _ in files]
