#!/bin/sh
# Writes every JSON Schema document under a folder into one Swift source file, as raw string
# literals keyed by their path without `.json` (`hallmark.sign.request.v1`, `common/envelope`).
# Run by the SchemaEmbedder build plugin on proto-json/. A shell script, not a Swift tool: a
# tool would be compiled with the build's flags, and the fuzz build's -sanitize=fuzzer cannot
# link an ordinary executable.
#
# Usage: embed-schemas.sh <folder> <output.swift>
set -eu
folder=$1
out=$2
tmp="$out.tmp"
{
    echo '// Generated at build time by the SchemaEmbedder plugin from proto-json/. Not committed.'
    echo ''
    echo '/// The JSON Schema documents of `proto-json/`, by path without `.json`.'
    echo 'enum ProtoJSONDocuments {'
    echo '    static let all: [String: String] = ['
    (cd "$folder" && find . -name '*.json' -type f | LC_ALL=C sort) | while IFS= read -r path; do
        name=${path#./}
        name=${name%.json}
        if grep -q '"""#' "$folder/$path"; then
            echo "$path: holds the raw-string terminator" >&2
            exit 1
        fi
        printf '        "%s": #"""\n' "$name"
        cat "$folder/$path"
        # The string ends before the newline that precedes its delimiter.
        if [ -n "$(tail -c 1 "$folder/$path")" ]; then echo; fi
        echo '"""#,'
    done
    echo '    ]'
    echo '}'
} >"$tmp"
mv "$tmp" "$out"
