"""``veil deidentify``: apply the Safe Harbor profile or a plan to a CSV file."""

from __future__ import annotations

import os
import re
from pathlib import Path
from typing import Any, Optional

import typer

from veil.cli._app import app, console, err_console, esc, input_files, read_frame, user_errors
from veil.errors import ConfigError, ParameterError

_PROFILES = ("safe-harbor",)
_DEFAULT_KEY_ENV = "VEIL_PSEUDONYM_KEY"
_ENV_NAME = re.compile(r"^[A-Za-z_][A-Za-z0-9_]{0,63}$")


def _load_config(path: Path) -> dict[str, Any]:
    from veil._config_text import read_config_file

    data = read_config_file(path, name=f"Config {str(path)!r}")
    if not isinstance(data, dict):
        raise ConfigError(f"Config {str(path)!r} must hold a mapping.")
    section = data.get("deidentify", data)
    if not isinstance(section, dict):
        raise ConfigError("deidentify: must be a mapping.")
    extra = [k for k in section if k not in ("columns", "profile", "restricted_zip3", "as_of", "link")]
    if extra:
        raise ConfigError(f"deidentify: unknown key(s) {', '.join(map(repr, extra))}; allowed: columns, "
                          "profile, restricted_zip3, as_of, link.")
    return section


def _refuse_key_as_input(key_file: Optional[Path], others: dict[str, Optional[Path]]) -> None:
    """Refuse a key file given as another input too: what that input's errors quote would be the key."""
    if key_file is None or not key_file.exists():
        return
    for option, path in others.items():
        if path is not None and Path(path).exists() and os.path.samefile(path, key_file):
            raise ParameterError(f"{option} is the key file ({str(key_file)!r}); the key is read from --key-file "
                                 "only. Give that option its own file.")


def _refuse_beside_section(section: dict[str, Any], config: Optional[Path], given: dict[str, object]) -> None:
    """Refuse a flag whose key the configuration's section also sets (the flag used to win silently)."""
    clash = [key for key, value in given.items() if value is not None and key in section]
    if clash:
        flags = ", ".join("--" + key.replace("_", "-") for key in clash)
        raise ParameterError(f"{flags} cannot be given beside --config {str(config)!r}, which sets "
                             f"{', '.join(map(repr, clash))}: give each in one place.")


def _read_key(key_env: str, key_file: Optional[Path], required: bool) -> Optional[bytes]:
    if key_file is not None:
        try:
            raw = key_file.read_bytes()
        except OSError as exc:
            raise ParameterError(f"Cannot read the key file {str(key_file)!r}: {exc.strerror}.") from None
        return raw.rstrip(b"\r\n")
    # --key-env names a variable; a user may paste the key itself there, so its value is never echoed
    # (only the default name is quoted back).
    named = "VEIL_PSEUDONYM_KEY" if key_env == _DEFAULT_KEY_ENV else "named by --key-env"
    if not _ENV_NAME.match(key_env):
        raise ParameterError("--key-env takes the NAME of an environment variable that holds the key (letters, "
                             "digits and _), not the key itself; the value given is not shown.")
    value = os.environ.get(key_env)
    if value:
        return value.encode("utf-8")
    if required:
        raise ParameterError(f"A pseudonymization key is needed but missing: set the environment variable "
                             f"{named} or pass --key-file (at least 16 bytes). Keys are never accepted as "
                             "command-line values.")
    return None


def _zip3_file(path: Optional[Path]) -> Optional[list[str]]:
    if path is None:
        return None
    try:
        text = path.read_text(encoding="utf-8")
    except OSError as exc:
        raise ParameterError(f"Cannot read the restricted ZIP3 file {str(path)!r}: {exc.strerror}.") from None
    return [t for t in text.replace(",", " ").split() if t]


@app.command("deidentify")
def deidentify_command(
    file: Path = typer.Argument(..., readable=False, help="CSV or Parquet file to de-identify."),
    output: Path = typer.Option(..., "-o", "--output", help="De-identified table to write (Parquet for .parquet/.pq, else CSV)."),
    profile: Optional[str] = typer.Option(None, "--profile", help="Profile to apply: safe-harbor."),
    config: Optional[Path] = typer.Option(None, "--config",
                                          help="YAML/JSON config with a 'deidentify' section (or the section "
                                               "itself): 'columns' actions and/or 'profile'."),
    key_env: str = typer.Option("VEIL_PSEUDONYM_KEY", "--key-env",
                                help="Environment variable holding the HMAC key (not the key itself)."),
    key_file: Optional[Path] = typer.Option(None, "--key-file", help="File holding the HMAC key."),
    mapping_out: Optional[Path] = typer.Option(None, "--mapping-out",
                                               help="Write the random-id mapping table here (only when given)."),
    report_out: Optional[Path] = typer.Option(None, "--report", help="Write the JSON report here."),
    restricted_zip3: Optional[Path] = typer.Option(None, "--restricted-zip3",
                                                   help="File listing ZIP3 areas with <= 20,000 people."),
    as_of: Optional[str] = typer.Option(None, "--as-of", help="Release date for the age-over-89 rule."),
    link: Optional[str] = typer.Option(None, "--link", help="Comma-separated identifier columns to replace by "
                                                            "random ids instead of dropping (safe-harbor)."),
    seed: Optional[int] = typer.Option(None, "--seed", help="Seed for random ids and shifts (default: fresh)."),
    sep: Optional[str] = typer.Option(None, "--sep", help="Field separator (default: sniffed)."),
    encoding: str = typer.Option("utf-8", "--encoding", help="CSV text encoding."),
) -> None:
    """Remove or mask direct identifiers: `--profile safe-harbor` or a plan from `--config`."""
    from veil.cli._app import split_list
    from veil.data import write_frame
    from veil.pipeline import publishing
    from veil.sanitize import Plan, deidentify, safe_harbor

    with user_errors():
        _refuse_key_as_input(key_file, {"FILE": file, "--config": config, "--restricted-zip3": restricted_zip3})
        section: dict[str, Any] = _load_config(config) if config is not None else {}
        _refuse_beside_section(section, config, {"profile": profile, "restricted_zip3": restricted_zip3,
                                                 "as_of": as_of, "link": link})
        chosen = profile or section.get("profile")
        if chosen is not None and chosen not in _PROFILES:
            raise ParameterError(f"The '--profile' option must be one of {{'safe-harbor'}}. Got {chosen!r} instead.")
        plan_part = {k: v for k, v in section.items() if k == "columns"}
        plan = Plan.from_dict(plan_part, path="deidentify") if plan_part else None
        if chosen is None and plan is None:
            raise ParameterError("Nothing to do: pass --profile safe-harbor or --config with a 'deidentify' "
                                 "section ('columns' and/or 'profile').")
        destinations = {"data": output, "mapping": mapping_out, "report": report_out}
        inputs = input_files(file, config, key_file, restricted_zip3)
        with publishing(destinations, inputs=inputs) as out:  # clashes refused here, before any work
            frame = read_frame(file, sep=sep, encoding=encoding)
            needs_key = plan is not None and plan.needs_key
            key = _read_key(key_env, key_file, needs_key)
            if chosen == "safe-harbor":
                zips = _zip3_file(restricted_zip3) if restricted_zip3 is not None else section.get("restricted_zip3")
                links = split_list(link, "--link") if link else list(section.get("link", []))
                result = safe_harbor(frame, restricted_zip3=zips, as_of=as_of or section.get("as_of"), link=links,
                                     rng=seed, key=key, overrides=plan)
            else:
                result = deidentify(frame, plan, key=key, rng=seed)
            out.write("data", lambda tmp: write_frame(result.frame, tmp))  # Parquet for a .parquet name
            if mapping_out is not None:  # written even when empty: the set of outputs is fixed up front
                out.write("mapping", lambda tmp: write_frame(result.mapping_frame(), tmp))
            if report_out is not None:
                out.write_json("report", {"file": file.name, **result.report.to_dict()})
    _print_summary(result, output, mapping_out)


def _print_summary(result: Any, output: Path, mapping_out: Optional[Path]) -> None:
    """What was done per column, what was kept, what is left undecided (every user string escaped)."""
    if result.mappings and mapping_out is None:
        err_console.print("[yellow]note:[/] random ids were assigned; their mapping is not saved "
                          "(pass --mapping-out to keep it).")
    rep = result.report
    for a in rep.done:
        console.print(f"  {esc(a.column)}: {a.action} ({a.changed} values changed)"
                      f"{' - ' + esc(a.note) if a.note else ''}", highlight=False)
    if rep.kept:
        console.print(f"  kept unchanged: {esc(', '.join(rep.kept))}", highlight=False)
    for u in rep.undecided:
        err_console.print(f"[yellow]undecided:[/] {esc(u.column) + ': ' if u.column else ''}{esc(u.reason)}",
                          highlight=False)
    console.print(f"Wrote {esc(output)} ({len(result.frame)} rows, {len(result.frame.columns)} columns).",
                  highlight=False)
