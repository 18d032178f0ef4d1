"""Every mail is a Jinja template in templates/<language>/<name>.txt.j2; its first line is "Subject: …"."""

from __future__ import annotations

from functools import lru_cache
from typing import Any

from jinja2 import Environment, FileSystemLoader, StrictUndefined, TemplateNotFound

from judge.resources import data_dir

DEFAULT_LANGUAGE = "en"


@lru_cache(maxsize=1)
def _env() -> Environment:
    return Environment(loader=FileSystemLoader(str(data_dir("templates"))), undefined=StrictUndefined,
                       trim_blocks=True, lstrip_blocks=True, keep_trailing_newline=True, autoescape=False)


def render_mail(name: str, language: str, **context: Any) -> tuple[str, str]:
    """(subject, body) of mail ``name`` in ``language`` (English when there is no translation)."""
    env = _env()
    try:
        template = env.get_template(f"{language}/{name}.txt.j2")
    except TemplateNotFound:
        template = env.get_template(f"{DEFAULT_LANGUAGE}/{name}.txt.j2")
    text = template.render(**context)
    first, _, body = text.partition("\n")
    if not first.startswith("Subject: "):
        raise ValueError(f"template {name} must start with a 'Subject: ' line")
    return first[len("Subject: "):].strip(), body.lstrip("\n")


def template_names(language: str = DEFAULT_LANGUAGE) -> list[str]:
    folder = data_dir("templates") / language
    return sorted(p.name[: -len(".txt.j2")] for p in folder.glob("*.txt.j2"))
