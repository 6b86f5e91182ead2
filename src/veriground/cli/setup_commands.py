"""`schema` and `config`: the record schemas and the resolved configuration."""

from __future__ import annotations

from veriground.cli.app import ConfigOption, CorpusOption, app, config_from, print_json


@app.command()
def schema() -> None:
    """Print the JSON Schema of every record (`veriground schema > schema.json`)."""
    from veriground.schema import export_json_schema

    print_json(export_json_schema())


@app.command("config")
def showconfig_from(corpus: CorpusOption = None, config_file: ConfigOption = None) -> None:
    """Print the resolved configuration (file, then VERIGROUND_* env, then flags)."""
    print_json(config_from(config_file, **{"corpus.dir": corpus}).model_dump(mode="json"))
