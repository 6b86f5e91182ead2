"""CLI options are declared once (cli/options.py) and carry the config key they set: every verification key is a
`verify` flag and every answer key an `ask` flag, each named as its key (kebab-case), and a flag sets its key
exactly as the VERIGROUND_* environment does."""

from __future__ import annotations

import inspect
from typing import Annotated, Any, get_args, get_origin

import pytest
import typer

from veriground.cli.ask_command import ask
from veriground.cli.options import ConfigKey, command_config, flag_overrides
from veriground.cli.verify_command import verify
from veriground.config import AnswerConfig, VerificationConfig, load_config


def keyed_options(command: Any) -> dict[str, tuple[str, tuple[str, ...]]]:
    """{config key: (parameter name, the option's flag declarations)} for every keyed option of `command`."""
    keyed = {}
    for name, parameter in inspect.signature(command, eval_str=True).parameters.items():
        if get_origin(parameter.annotation) is not Annotated:
            continue
        metadata = get_args(parameter.annotation)[1:]
        option = next(item for item in metadata if isinstance(item, typer.models.ParameterInfo))
        for item in metadata:
            if isinstance(item, ConfigKey):
                keyed[item.key] = (name, tuple(option.param_decls or ()))
    return keyed


def flag_of(name: str, declarations: tuple[str, ...]) -> set[str]:
    """The long flags an option answers to ('--a/--no-a' gives both; none declared: the parameter's name)."""
    if not declarations:
        return {"--" + name.replace("_", "-")}
    return {flag for declaration in declarations for flag in declaration.split("/") if flag.startswith("--")}


@pytest.mark.parametrize(
    ("command", "section", "fields"),
    [(verify, "verification", VerificationConfig.model_fields), (ask, "answer", AnswerConfig.model_fields)],
    ids=["verify", "ask"],
)
def test_every_key_of_the_section_is_a_flag_named_as_the_key(command, section, fields):
    keyed = keyed_options(command)
    missing = sorted(f"{section}.{field}" for field in fields if f"{section}.{field}" not in keyed)
    assert missing == [], f"{command.__name__} has no flag for {missing}"
    for field in fields:
        name, declarations = keyed[f"{section}.{field}"]
        assert "--" + field.replace("_", "-") in flag_of(name, declarations), (field, declarations)


def test_the_flag_table_is_read_off_the_signature():
    values = dict.fromkeys(inspect.signature(verify).parameters)
    values.update(top_k=7, nli="lexical", corpus="somewhere", details=True)
    overrides = flag_overrides(verify, values)
    assert overrides["retrieval.top_k"] == 7
    assert overrides["models.nli"] == "lexical"
    assert overrides["corpus.dir"] == "somewhere"
    assert "details" not in str(overrides)  # a display switch sets no key
    assert overrides["verification.domain"] is None  # not given: the file and the environment decide


@pytest.mark.parametrize(
    ("parameter", "value", "variable", "read"),
    [
        ("max_claims_brief", 3, "VERIGROUND_ANSWER__MAX_CLAIMS_BRIEF", lambda config: config.answer.max_claims_brief),
        ("verify", False, "VERIGROUND_ANSWER__VERIFY", lambda config: config.answer.verify),
        ("min_query_coverage", 0.7, "VERIGROUND_ANSWER__MIN_QUERY_COVERAGE", lambda c: c.answer.min_query_coverage),
    ],
)
def test_an_ask_flag_sets_its_key_as_the_environment_does(monkeypatch, parameter, value, variable, read):
    values: dict[str, Any] = dict.fromkeys(inspect.signature(ask).parameters)
    values[parameter] = value
    by_flag = command_config(ask, values)
    monkeypatch.setenv(variable, str(value).lower() if isinstance(value, bool) else str(value))
    by_env = load_config(None)
    assert read(by_flag) == read(by_env) == value
