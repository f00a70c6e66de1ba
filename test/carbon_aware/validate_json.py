#!/usr/bin/env python3
"""Validates JSON documents against a JSON Schema (draft 2020-12) with the
`jsonschema` library (Debian's python3-jsonschema).

Usage: validate_json.py SCHEMA DOCUMENT...
Prints each document's errors and exits 1 if any is invalid, 0 otherwise.
"""
import json
import sys

import jsonschema


def main():
    if len(sys.argv) < 3:
        print(__doc__, file=sys.stderr)
        return 2
    with open(sys.argv[1]) as f:
        schema = json.load(f)
    jsonschema.Draft202012Validator.check_schema(schema)
    validator = jsonschema.Draft202012Validator(schema)
    failed = 0
    for path in sys.argv[2:]:
        with open(path) as f:
            document = json.load(f)
        for error in validator.iter_errors(document):
            failed += 1
            print(f"{path}: {'/'.join(map(str, error.absolute_path))}: {error.message}")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
