"""`schema` and `config`: the record schemas and the resolved configuration."""

from __future__ import annotations

from veriground.cli import options
from veriground.cli.app import app, print_json


@app.command()
def schema() -> None:
    """Print the JSON Schema of every record (`veriground schema > schema.json`)."""
    from veriground.schema import export_json_schema

    print_json(export_json_schema())


@app.command("config")
def show_config(corpus: options.Corpus = None, config_file: options.ConfigFile = None) -> None:
    """Print the resolved configuration (file, then VERIGROUND_* env, then flags)."""
    print_json(options.command_config(show_config, locals()).model_dump(mode="json"))
