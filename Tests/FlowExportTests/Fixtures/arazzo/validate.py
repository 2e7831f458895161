#!/usr/bin/env python3
"""Validates Arazzo documents against the published Arazzo 1.0 JSON Schema (jsonschema,
draft 2020-12, formats checked) and the OpenAPI descriptions they name with
openapi-spec-validator. Prints one JSON line per document: {"file", "errors": [...]}.

Usage: validate.py SCHEMA DOCUMENT...
"""
import json
import os
import sys

import jsonschema
import yaml
from openapi_spec_validator import validate as validate_openapi


def load(path):
    with open(path) as handle:
        return json.load(handle) if path.endswith(".json") else yaml.safe_load(handle)


def main():
    with open(sys.argv[1]) as handle:
        schema = json.load(handle)
    validator = jsonschema.Draft202012Validator(schema, format_checker=jsonschema.Draft202012Validator.FORMAT_CHECKER)
    for path in sys.argv[2:]:
        document = load(path)
        errors = ["/".join(map(str, error.absolute_path)) + ": " + error.message for error in validator.iter_errors(document)]
        for source in document.get("sourceDescriptions", []) if isinstance(document, dict) else []:
            source_path = os.path.join(os.path.dirname(path), source.get("url", ""))
            try:
                validate_openapi(load(source_path))
            except Exception as error:  # a missing file, YAML error or OpenAPI violation
                errors.append("source " + source.get("url", "?") + ": " + str(error).splitlines()[0])
        print(json.dumps({"file": os.path.basename(path), "errors": errors}))


if __name__ == "__main__":
    main()
