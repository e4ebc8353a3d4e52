"""JSON-schema normalisation (spec client-runtime §8, §11.8, §4.11).

The two tables were produced by the reference: ``normalizeToolParameterSchema`` (``@openclaw/ai``) and
``normalizeJsonSchemaForTypeBox(schema, {format: "annotation"})`` run with node 24 on each input (odd
lines: input; even lines: the reference's ``JSON.stringify`` of the output). Fuzzing 3 000 random schemas
the same way found no difference."""

from __future__ import annotations

import json
from typing import Any

import pytest

from openclaw_mcp.domain.output_schemas import (
    DRAFT_2020_12_SCHEMA,
    CallResultViolation,
    check_call_result,
    ecmascript_unicode_pattern_compiles,
    format_validation_errors,
    invalid_schema_message,
    is_draft_2020_12,
    json_pointer,
    normalize_output_schema,
)
from openclaw_mcp.domain.schemas import normalize_tool_parameters
from openclaw_mcp.jscompat.jsjson import js_dumps


def _pairs(table: str) -> list[tuple[str, str]]:
    lines = table.strip().splitlines()
    return list(zip(lines[::2], lines[1::2], strict=True))


# Input / reference output of normalizeToolParameterSchema.
TOOL_PARAMETER_CASES = r"""
{}
{"type":"object","properties":{}}
{"properties":{"a":{"type":"string"}}}
{"properties":{"a":{"type":"string"}},"type":"object"}
{"required":["a"]}
{"required":["a"],"type":"object","properties":{}}
{"type":"object","properties":[1]}
{"type":"object","properties":{}}
{"type":"object","properties":{"xs":{"type":"array"}}}
{"type":"object","properties":{"xs":{"type":"array","items":{}}}}
{"type":"object","properties":{"parent":{"$ref":"#/$defs/parentRequest","description":"P"}},"$defs":{"parentRequest":{"oneOf":[{"type":"object","properties":{"page_id":{"type":"string"}},"required":["page_id"]},{"type":"object","properties":{"database_id":{"type":"string"}},"required":["database_id"]}]}}}
{"type":"object","properties":{"parent":{"oneOf":[{"type":"object","properties":{"page_id":{"type":"string"}},"required":["page_id"]},{"type":"object","properties":{"database_id":{"type":"string"}},"required":["database_id"]}],"description":"P"}}}
{"type":"object","properties":{"a":{"$ref":"#/definitions/A"}},"definitions":{"A":{"type":"integer"}}}
{"type":"object","properties":{"a":{"type":"integer"}}}
{"type":"object","properties":{"node":{"$ref":"#/$defs/Node"}},"$defs":{"Node":{"type":"object","properties":{"child":{"$ref":"#/$defs/Node"}}}}}
{"type":"object","properties":{"node":{"type":"object","properties":{"child":{}}}}}
{"type":"object","properties":{"a":{"$ref":"#/$defs/Missing"}},"$defs":{"B":{"type":"string"}}}
{"type":"object","properties":{"a":{"$ref":"#/$defs/Missing"}},"$defs":{"B":{"type":"string"}}}
{"type":"object","properties":{"a":{"type":"string","nullable":true,"example":"x","readOnly":true}}}
{"type":"object","properties":{"a":{"type":["string","null"]}}}
{"type":"object","properties":{"b":{"enum":["x","y"],"type":"string","nullable":true}}}
{"type":"object","properties":{"b":{"enum":["x","y",null],"type":["string","null"]}}}
{"type":"object","properties":{"c":{"anyOf":[{"type":"string"}],"nullable":true,"description":"C"}}}
{"type":"object","properties":{"c":{"anyOf":[{"anyOf":[{"type":"string"}],"description":"C"},{"type":"null"}],"description":"C"}}}
{"anyOf":[{"type":"object","properties":{"a":{"type":"string"}},"required":["a"]},{"type":"object","properties":{"b":{"type":"number"}},"required":["a","b"]}]}
{"type":"object","properties":{"a":{"type":"string"},"b":{"type":"number"}},"required":["a"],"additionalProperties":true}
{"oneOf":[{"type":"object","properties":{"kind":{"const":"x"}}},{"type":"object","properties":{"kind":{"const":"y"}}}]}
{"type":"object","properties":{"kind":{"type":"string","enum":["x","y"]}},"additionalProperties":true}
{"allOf":[{"type":"object"}]}
{"allOf":[{"type":"object"}]}
{"type":"string"}
{"type":"string"}
{"type":"object","properties":{"u":{"$ref":"https://x/y"}}}
{"type":"object","properties":{"u":{"$ref":"https://x/y"}}}
{"$defs":{"a":{"type":"string"}},"type":"object","properties":{"x":{"$ref":"#/$defs/zz"},"y":{"$ref":"#/$defs/a"}}}
{"type":"object","properties":{"x":{"$ref":"#/$defs/zz"},"y":{"type":"string"}},"$defs":{"a":{"type":"string"}}}
{"type":"object","properties":{"y":{"$ref":"#/$defs/a"},"x":{"$ref":"#/$defs/zz"},"z":{"$defs":{"q":1},"type":"string"}},"$defs":{"a":{"type":"string","$defs":{"k":1}}}}
{"type":"object","properties":{"y":{"type":"string"},"x":{"$ref":"#/$defs/zz"},"z":{"type":"string","$defs":{"q":1}}},"$defs":{"a":{"type":"string","$defs":{"k":1}}}}
{"type":"object","properties":{"d":{"type":"string","format":"date-time"}},"$schema":"http://json-schema.org/draft-07/schema#"}
{"type":"object","properties":{"d":{"type":"string","format":"date-time"}},"$schema":"http://json-schema.org/draft-07/schema#"}
[]
{"type":"object","properties":{}}
[{"type":"array"}]
[{"type":"array"}]
null
null
"x"
"x"
5
5
true
true
{"type":"object","properties":{"p":{"$ref":"#/properties/q"},"q":{"type":"number","title":"Q"}}}
{"type":"object","properties":{"p":{"type":"number","title":"Q"},"q":{"type":"number","title":"Q"}}}
{"type":"object","properties":{"p":{"$ref":"#/$defs/N/properties/a"}},"$defs":{"N":{"properties":{"a":{"type":"boolean"}}}}}
{"type":"object","properties":{"p":{"type":"boolean"}}}
{"type":"object","properties":{"p":{"$ref":"#/$defs/a~1b"}},"$defs":{"a/b":{"type":"boolean"}}}
{"type":"object","properties":{"p":{"type":"boolean"}}}
{"type":"object","properties":{"p":{"$ref":"#/$defs/N","nullable":true,"title":"T","default":3}},"$defs":{"N":{"type":"string"}}}
{"type":"object","properties":{"p":{"type":["string","null"],"title":"T","default":3}}}
{"anyOf":[{"type":"object","properties":{"k":{"enum":[1,"a"]}}},{"type":"object","properties":{"k":{"anyOf":[{"const":1},{"const":null}]}}}],"title":"T","description":"D","additionalProperties":false}
{"type":"object","title":"T","description":"D","properties":{"k":{"enum":[1,"a",null]}},"additionalProperties":false}
{"oneOf":[{"properties":[{"type":"string"}]},{"properties":{"0":{"type":"number"}},"required":["0","0"]}]}
{"type":"object","properties":{"0":{"type":"string"}},"required":["0"],"additionalProperties":true}
{"anyOf":[],"properties":"x"}
{"type":"object","properties":"x","additionalProperties":true}
{"anyOf":[{"type":"null"}],"nullable":true}
{"type":"object","properties":{},"additionalProperties":true}
{"type":"object","properties":{"n":{"oneOf":[{"type":"string"},{"const":null}],"nullable":true}}}
{"type":"object","properties":{"n":{"oneOf":[{"type":"string"},{"const":null}]}}}
{"type":"object","properties":{"n":{"allOf":[{"type":"string"}],"nullable":true,"title":"A"}}}
{"type":"object","properties":{"n":{"anyOf":[{"allOf":[{"type":"string"}],"title":"A"},{"type":"null"}],"title":"A"}}}
{"type":"object","properties":{"n":{"type":["string","null"],"nullable":true}}}
{"type":"object","properties":{"n":{"type":["string","null"]}}}
{"type":"object","properties":{"n":{"type":"null","nullable":true}}}
{"type":"object","properties":{"n":{"type":"null"}}}
{"type":"object","properties":{"n":{"nullable":true,"enum":[null,1]}}}
{"type":"object","properties":{"n":{"enum":[null,1]}}}
{"type":"object","properties":{"t":{"type":"array","items":[{"type":"array"}],"prefixItems":[{"type":"array"}]}}}
{"type":"object","properties":{"t":{"type":"array","items":[{"type":"array","items":{}}],"prefixItems":[{"type":"array","items":{}}]}}}
{"type":"array"}
{"type":"array","items":{}}
{"type":["object","null"],"properties":{"a":{}}}
{"type":["object","null"],"properties":{"a":{}}}
{"properties":{"a":{"type":"array"}},"required":"x"}
{"properties":{"a":{"type":"array","items":{}}},"required":"x","type":"object"}
{"required":"x"}
{"required":"x"}
{"type":"object","properties":{"a":{"$ref":""}}}
{"type":"object","properties":{"a":{"$ref":""}}}
{"type":"object","properties":{"a":{"$ref":"#/$defs/x"}},"$defs":{"x":null}}
{"type":"object","properties":{"a":null}}
{"type":"object","properties":{"a":{"$ref":"#/$defs/x"}},"$defs":{"x":"str"}}
{"type":"object","properties":{"a":"str"}}
{"type":"object","properties":{"a":{"$ref":"#"}}}
{"type":"object","properties":{"a":{"$ref":"#"}}}
{"type":"object","properties":{"a":{"$ref":"#/"}}}
{"type":"object","properties":{"a":{"$ref":"#/"}}}
{"type":"object","properties":{"10":{"type":"array"},"2":{"nullable":true,"type":"integer"},"b":{}}}
{"type":"object","properties":{"2":{"type":["integer","null"]},"10":{"type":"array","items":{}},"b":{}}}
{"type":"object","properties":{"a":{"$ref":"#/$defs/A"}},"$defs":{"A":{"type":"object","properties":{"b":{"$ref":"#/$defs/B"}}},"B":{"$ref":"#/$defs/A"}}}
{"type":"object","properties":{"a":{"type":"object","properties":{"b":{}}}}}
{"type":"object","components":{"schemas":{"X":{"type":"string"}}},"properties":{"a":{"$ref":"#/components/schemas/X"}}}
{"type":"object","properties":{"a":{"type":"string"}}}
{"type":"object","properties":{"a":{"$ref":"#/components/schemas/Y"}},"components":{"schemas":{"X":{"type":"string"}}}}
{"type":"object","properties":{"a":{"$ref":"#/components/schemas/Y"}},"components":{"schemas":{"X":{"type":"string"}}}}
{"type":"object","properties":{"a":{"items":{"type":"array"},"type":"array","additionalProperties":{"type":"array"},"not":{"type":"array","nullable":true}}}}
{"type":"object","properties":{"a":{"items":{"type":"array","items":{}},"type":"array","additionalProperties":{"type":"array","items":{}},"not":{"type":["array","null"]}}}}
{"type":"object","properties":{"a":{"default":{"type":"array"},"enum":[{"type":"array"}],"const":{"nullable":true}}}}
{"type":"object","properties":{"a":{"default":{"type":"array"},"enum":[{"type":"array"}],"const":{"nullable":true}}}}
{"oneOf":[{"type":"object","properties":{"a":{"enum":[1,1.0,true]}}},{"type":"object","properties":{"a":{"enum":[true,"1"]}}}]}
{"type":"object","properties":{"a":{"enum":[1,true,"1"]}},"additionalProperties":true}
{"oneOf":[{"type":"object","properties":{"a":{"enum":[null]}}},{"type":"object","properties":{"a":{"const":null,"title":"x"}}}]}
{"type":"object","properties":{"a":{"title":"x","type":"object","enum":[null]}},"additionalProperties":true}
"""

# Input / reference output of normalizeJsonSchemaForTypeBox(schema, {format: "annotation"}).
OUTPUT_SCHEMA_CASES = r"""
{"type":"object","properties":{"v":{"type":["string","null"]}}}
{"type":"object","properties":{"v":{"anyOf":[{"type":"string"},{"type":"null"}]}}}
{"type":"string","nullable":true}
{"anyOf":[{"type":"string"},{"type":"null"}]}
{"type":["string"]}
{"anyOf":[{"type":"string"}]}
{"type":"string","nullable":true,"enum":["a"],"enumIncludesNull":true}
{"anyOf":[{"enum":["a",null],"enumIncludesNull":true,"type":"string"},{"enum":["a",null],"enumIncludesNull":true,"type":"null"}]}
{"$id":"x","$schema":"https://json-schema.org/draft/2020-12/schema","type":["object","null"],"properties":{"a":{}},"$defs":{"q":{"type":"string","format":"email"}}}
{"$id":"x","$schema":"https://json-schema.org/draft/2020-12/schema","$defs":{"q":{"type":"string"}},"anyOf":[{"properties":{"a":{}},"type":"object"},{"properties":{"a":{}},"type":"null"}]}
{"type":"object","additionalProperties":{"type":"string"}}
{"type":"object","patternProperties":{".*":{"type":"string"}},"additionalProperties":false}
{"type":"object","additionalProperties":{"type":"string"},"properties":{}}
{"type":"object","additionalProperties":{"type":"string"},"properties":{}}
{"type":"object","additionalProperties":{"type":"string"},"patternProperties":[]}
{"type":"object","patternProperties":{".*":{"type":"string"}},"additionalProperties":false}
{"$dynamicRef":"#meta"}
{"$ref":"#meta"}
{"$dynamicRef":"#meta","$ref":"#/x"}
{"$dynamicRef":"#meta","$ref":"#/x"}
{"pattern":"^https?\\:\\/\\/x$"}
{"pattern":"^https?://x$"}
{"pattern":"^a\\/b$"}
{"pattern":"^a\\/b$"}
{"pattern":"\\:(["}
{"pattern":"\\:(["}
{"patternProperties":{"^a\\:b$":{"type":"string"},"^a:b$":{"type":"number"},"x":{"type":["integer","null"]}}}
{"patternProperties":{"^a:b$":{"allOf":[{"type":"string"},{"type":"number"}]},"x":{"anyOf":[{"type":"integer"},{"type":"null"}]}}}
{"dependencies":{"a":["b","c"],"d":{"type":"object","format":"x"},"e":[1]}}
{"dependencies":{"a":["b","c"],"d":{"type":"object"},"e":[1]}}
{"items":[{"type":["a","b"]}],"not":{"nullable":true,"type":"x"},"unevaluatedProperties":{"format":"f"}}
{"items":[{"anyOf":[{"type":"a"},{"type":"b"}]}],"not":{"anyOf":[{"type":"x"},{"type":"null"}]},"unevaluatedProperties":{}}
[{"format":"x"}]
[{}]
null
null
1
1
"s"
"s"
{"nullable":true}
{"nullable":true}
{"type":"null","nullable":true}
{"type":"null","nullable":true}
{"type":5,"nullable":true}
{"type":5,"nullable":true}
{"properties":{"10":{"type":["a","b"]},"2":{"format":"x"}}}
{"properties":{"2":{},"10":{"anyOf":[{"type":"a"},{"type":"b"}]}}}
{"pattern":"^a$"}
{"pattern":"^a$"}
{"pattern":"^^a$\\:$"}
{"pattern":"^^a$:$"}
{"patternProperties":{"^a$":{"type":"string"},"^a$\\:":{}}}
{"patternProperties":{"^a$":{"type":"string"},"^a$:":{}}}
{"pattern":"\\:"}
{"pattern":":"}
{"pattern":"^\\:\\:$"}
{"pattern":"^::$"}
{"patternProperties":{"\\:":{"type":"string"},"\\:\\:":{}}}
{"patternProperties":{":":{"type":"string"},"::":{}}}
{"pattern":"\\/"}
{"pattern":"\\/"}
{"pattern":"^\\/\\:$"}
{"pattern":"^/:$"}
{"patternProperties":{"\\/":{"type":"string"},"\\/\\:":{}}}
{"patternProperties":{"\\/":{"type":"string"},"/:":{}}}
{"pattern":"[\\:]"}
{"pattern":"[:]"}
{"pattern":"^[\\:]\\:$"}
{"pattern":"^[:]:$"}
{"patternProperties":{"[\\:]":{"type":"string"},"[\\:]\\:":{}}}
{"patternProperties":{"[:]":{"type":"string"},"[:]:":{}}}
{"pattern":"a{"}
{"pattern":"a{"}
{"pattern":"^a{\\:$"}
{"pattern":"^a{\\:$"}
{"patternProperties":{"a{":{"type":"string"},"a{\\:":{}}}
{"patternProperties":{"a{":{"type":"string"},"a{\\:":{}}}
{"pattern":"a{2}"}
{"pattern":"a{2}"}
{"pattern":"^a{2}\\:$"}
{"pattern":"^a{2}:$"}
{"patternProperties":{"a{2}":{"type":"string"},"a{2}\\:":{}}}
{"patternProperties":{"a{2}":{"type":"string"},"a{2}:":{}}}
{"pattern":"a{2,}"}
{"pattern":"a{2,}"}
{"pattern":"^a{2,}\\:$"}
{"pattern":"^a{2,}:$"}
{"patternProperties":{"a{2,}":{"type":"string"},"a{2,}\\:":{}}}
{"patternProperties":{"a{2,}":{"type":"string"},"a{2,}:":{}}}
{"pattern":"a{,3}"}
{"pattern":"a{,3}"}
{"pattern":"^a{,3}\\:$"}
{"pattern":"^a{,3}\\:$"}
{"patternProperties":{"a{,3}":{"type":"string"},"a{,3}\\:":{}}}
{"patternProperties":{"a{,3}":{"type":"string"},"a{,3}\\:":{}}}
{"pattern":"}"}
{"pattern":"}"}
{"pattern":"^}\\:$"}
{"pattern":"^}\\:$"}
{"patternProperties":{"}":{"type":"string"},"}\\:":{}}}
{"patternProperties":{"}":{"type":"string"},"}\\:":{}}}
{"pattern":"]"}
{"pattern":"]"}
{"pattern":"^]\\:$"}
{"pattern":"^]\\:$"}
{"patternProperties":{"]":{"type":"string"},"]\\:":{}}}
{"patternProperties":{"]":{"type":"string"},"]\\:":{}}}
{"pattern":"\\p{L}"}
{"pattern":"\\p{L}"}
{"pattern":"^\\p{L}\\:$"}
{"pattern":"^\\p{L}:$"}
{"patternProperties":{"\\p{L}":{"type":"string"},"\\p{L}\\:":{}}}
{"patternProperties":{"\\p{L}":{"type":"string"},"\\p{L}:":{}}}
{"pattern":"\\p{L"}
{"pattern":"\\p{L"}
{"pattern":"^\\p{L\\:$"}
{"pattern":"^\\p{L\\:$"}
{"patternProperties":{"\\p{L":{"type":"string"},"\\p{L\\:":{}}}
{"patternProperties":{"\\p{L":{"type":"string"},"\\p{L\\:":{}}}
{"pattern":"\\u{1F600}"}
{"pattern":"\\u{1F600}"}
{"pattern":"^\\u{1F600}\\:$"}
{"pattern":"^\\u{1F600}:$"}
{"patternProperties":{"\\u{1F600}":{"type":"string"},"\\u{1F600}\\:":{}}}
{"patternProperties":{"\\u{1F600}":{"type":"string"},"\\u{1F600}:":{}}}
{"pattern":"\\u12"}
{"pattern":"\\u12"}
{"pattern":"^\\u12\\:$"}
{"pattern":"^\\u12\\:$"}
{"patternProperties":{"\\u12":{"type":"string"},"\\u12\\:":{}}}
{"patternProperties":{"\\u12":{"type":"string"},"\\u12\\:":{}}}
{"pattern":"\\uABCD"}
{"pattern":"\\uABCD"}
{"pattern":"^\\uABCD\\:$"}
{"pattern":"^\\uABCD:$"}
{"patternProperties":{"\\uABCD":{"type":"string"},"\\uABCD\\:":{}}}
{"patternProperties":{"\\uABCD":{"type":"string"},"\\uABCD:":{}}}
{"pattern":"\\x4"}
{"pattern":"\\x4"}
{"pattern":"^\\x4\\:$"}
{"pattern":"^\\x4\\:$"}
{"patternProperties":{"\\x4":{"type":"string"},"\\x4\\:":{}}}
{"patternProperties":{"\\x4":{"type":"string"},"\\x4\\:":{}}}
{"pattern":"\\x41"}
{"pattern":"\\x41"}
{"pattern":"^\\x41\\:$"}
{"pattern":"^\\x41:$"}
{"patternProperties":{"\\x41":{"type":"string"},"\\x41\\:":{}}}
{"patternProperties":{"\\x41":{"type":"string"},"\\x41:":{}}}
{"pattern":"\\cA"}
{"pattern":"\\cA"}
{"pattern":"^\\cA\\:$"}
{"pattern":"^\\cA:$"}
{"patternProperties":{"\\cA":{"type":"string"},"\\cA\\:":{}}}
{"patternProperties":{"\\cA":{"type":"string"},"\\cA:":{}}}
{"pattern":"\\c1"}
{"pattern":"\\c1"}
{"pattern":"^\\c1\\:$"}
{"pattern":"^\\c1\\:$"}
{"patternProperties":{"\\c1":{"type":"string"},"\\c1\\:":{}}}
{"patternProperties":{"\\c1":{"type":"string"},"\\c1\\:":{}}}
{"pattern":"(?<n>a)\\k<n>"}
{"pattern":"(?<n>a)\\k<n>"}
{"pattern":"^(?<n>a)\\k<n>\\:$"}
{"pattern":"^(?<n>a)\\k<n>:$"}
{"patternProperties":{"(?<n>a)\\k<n>":{"type":"string"},"(?<n>a)\\k<n>\\:":{}}}
{"patternProperties":{"(?<n>a)\\k<n>":{"type":"string"},"(?<n>a)\\k<n>:":{}}}
{"pattern":"\\k<n>"}
{"pattern":"\\k<n>"}
{"pattern":"^\\k<n>\\:$"}
{"pattern":"^\\k<n>\\:$"}
{"patternProperties":{"\\k<n>":{"type":"string"},"\\k<n>\\:":{}}}
{"patternProperties":{"\\k<n>":{"type":"string"},"\\k<n>\\:":{}}}
{"pattern":"(?<=a)b"}
{"pattern":"(?<=a)b"}
{"pattern":"^(?<=a)b\\:$"}
{"pattern":"^(?<=a)b:$"}
{"patternProperties":{"(?<=a)b":{"type":"string"},"(?<=a)b\\:":{}}}
{"patternProperties":{"(?<=a)b":{"type":"string"},"(?<=a)b:":{}}}
{"pattern":"\\-"}
{"pattern":"\\-"}
{"pattern":"^\\-\\:$"}
{"pattern":"^\\-\\:$"}
{"patternProperties":{"\\-":{"type":"string"},"\\-\\:":{}}}
{"patternProperties":{"\\-":{"type":"string"},"\\-\\:":{}}}
{"pattern":"[\\-]"}
{"pattern":"[\\-]"}
{"pattern":"^[\\-]\\:$"}
{"pattern":"^[\\-]:$"}
{"patternProperties":{"[\\-]":{"type":"string"},"[\\-]\\:":{}}}
{"patternProperties":{"[\\-]":{"type":"string"},"[\\-]:":{}}}
{"pattern":"[\\b]"}
{"pattern":"[\\b]"}
{"pattern":"^[\\b]\\:$"}
{"pattern":"^[\\b]:$"}
{"patternProperties":{"[\\b]":{"type":"string"},"[\\b]\\:":{}}}
{"patternProperties":{"[\\b]":{"type":"string"},"[\\b]:":{}}}
{"pattern":"[\\B]"}
{"pattern":"[\\B]"}
{"pattern":"^[\\B]\\:$"}
{"pattern":"^[\\B]\\:$"}
{"patternProperties":{"[\\B]":{"type":"string"},"[\\B]\\:":{}}}
{"patternProperties":{"[\\B]":{"type":"string"},"[\\B]\\:":{}}}
{"pattern":"\\b"}
{"pattern":"\\b"}
{"pattern":"^\\b\\:$"}
{"pattern":"^\\b:$"}
{"patternProperties":{"\\b":{"type":"string"},"\\b\\:":{}}}
{"patternProperties":{"\\b":{"type":"string"},"\\b:":{}}}
{"pattern":"\\1"}
{"pattern":"\\1"}
{"pattern":"^\\1\\:$"}
{"pattern":"^\\1\\:$"}
{"patternProperties":{"\\1":{"type":"string"},"\\1\\:":{}}}
{"patternProperties":{"\\1":{"type":"string"},"\\1\\:":{}}}
{"pattern":"(a)\\1"}
{"pattern":"(a)\\1"}
{"pattern":"^(a)\\1\\:$"}
{"pattern":"^(a)\\1:$"}
{"patternProperties":{"(a)\\1":{"type":"string"},"(a)\\1\\:":{}}}
{"patternProperties":{"(a)\\1":{"type":"string"},"(a)\\1:":{}}}
{"pattern":"\\e"}
{"pattern":"\\e"}
{"pattern":"^\\e\\:$"}
{"pattern":"^\\e\\:$"}
{"patternProperties":{"\\e":{"type":"string"},"\\e\\:":{}}}
{"patternProperties":{"\\e":{"type":"string"},"\\e\\:":{}}}
{"pattern":"\\a"}
{"pattern":"\\a"}
{"pattern":"^\\a\\:$"}
{"pattern":"^\\a\\:$"}
{"patternProperties":{"\\a":{"type":"string"},"\\a\\:":{}}}
{"patternProperties":{"\\a":{"type":"string"},"\\a\\:":{}}}
{"pattern":"\\_"}
{"pattern":"\\_"}
{"pattern":"^\\_\\:$"}
{"pattern":"^\\_\\:$"}
{"patternProperties":{"\\_":{"type":"string"},"\\_\\:":{}}}
{"patternProperties":{"\\_":{"type":"string"},"\\_\\:":{}}}
{"pattern":"a\\\\:"}
{"pattern":"a\\\\:"}
{"pattern":"^a\\\\:\\:$"}
{"pattern":"^a\\\\:\\:$"}
{"patternProperties":{"a\\\\:":{"type":"string"},"a\\\\:\\:":{}}}
{"patternProperties":{"a\\\\:":{"type":"string"},"a\\\\:\\:":{}}}
{"pattern":"\\\\:"}
{"pattern":"\\\\:"}
{"pattern":"^\\\\:\\:$"}
{"pattern":"^\\\\:\\:$"}
{"patternProperties":{"\\\\:":{"type":"string"},"\\\\:\\:":{}}}
{"patternProperties":{"\\\\:":{"type":"string"},"\\\\:\\:":{}}}
{"pattern":"\\0"}
{"pattern":"\\0"}
{"pattern":"^\\0\\:$"}
{"pattern":"^\\0:$"}
{"patternProperties":{"\\0":{"type":"string"},"\\0\\:":{}}}
{"patternProperties":{"\\0":{"type":"string"},"\\0:":{}}}
{"pattern":"[^]"}
{"pattern":"[^]"}
{"pattern":"^[^]\\:$"}
{"pattern":"^[^]:$"}
{"patternProperties":{"[^]":{"type":"string"},"[^]\\:":{}}}
{"patternProperties":{"[^]":{"type":"string"},"[^]:":{}}}
{"pattern":"[]"}
{"pattern":"[]"}
{"pattern":"^[]\\:$"}
{"pattern":"^[]:$"}
{"patternProperties":{"[]":{"type":"string"},"[]\\:":{}}}
{"patternProperties":{"[]":{"type":"string"},"[]:":{}}}
{"pattern":"("}
{"pattern":"("}
{"pattern":"^(\\:$"}
{"pattern":"^(\\:$"}
{"patternProperties":{"(":{"type":"string"},"(\\:":{}}}
{"patternProperties":{"(":{"type":"string"},"(\\:":{}}}
{"pattern":")"}
{"pattern":")"}
{"pattern":"^)\\:$"}
{"pattern":"^)\\:$"}
{"patternProperties":{")":{"type":"string"},")\\:":{}}}
{"patternProperties":{")":{"type":"string"},")\\:":{}}}
{"pattern":"a**"}
{"pattern":"a**"}
{"pattern":"^a**\\:$"}
{"pattern":"^a**\\:$"}
{"patternProperties":{"a**":{"type":"string"},"a**\\:":{}}}
{"patternProperties":{"a**":{"type":"string"},"a**\\:":{}}}
{"pattern":"\\d\\D\\s\\S\\w\\W"}
{"pattern":"\\d\\D\\s\\S\\w\\W"}
{"pattern":"^\\d\\D\\s\\S\\w\\W\\:$"}
{"pattern":"^\\d\\D\\s\\S\\w\\W:$"}
{"patternProperties":{"\\d\\D\\s\\S\\w\\W":{"type":"string"},"\\d\\D\\s\\S\\w\\W\\:":{}}}
{"patternProperties":{"\\d\\D\\s\\S\\w\\W":{"type":"string"},"\\d\\D\\s\\S\\w\\W:":{}}}
{"pattern":"\\."}
{"pattern":"\\."}
{"pattern":"^\\.\\:$"}
{"pattern":"^\\.:$"}
{"patternProperties":{"\\.":{"type":"string"},"\\.\\:":{}}}
{"patternProperties":{"\\.":{"type":"string"},"\\.:":{}}}
{"pattern":"\\ "}
{"pattern":"\\ "}
{"pattern":"^\\ \\:$"}
{"pattern":"^\\ \\:$"}
{"patternProperties":{"\\ ":{"type":"string"},"\\ \\:":{}}}
{"patternProperties":{"\\ ":{"type":"string"},"\\ \\:":{}}}
{"pattern":"\\$"}
{"pattern":"\\$"}
{"pattern":"^\\$\\:$"}
{"pattern":"^\\$:$"}
{"patternProperties":{"\\$":{"type":"string"},"\\$\\:":{}}}
{"patternProperties":{"\\$":{"type":"string"},"\\$:":{}}}
{"pattern":"x\\:y\\/z"}
{"pattern":"x:y/z"}
{"pattern":"^x\\:y\\/z\\:$"}
{"pattern":"^x:y/z:$"}
{"patternProperties":{"x\\:y\\/z":{"type":"string"},"x\\:y\\/z\\:":{}}}
{"patternProperties":{"x:y/z":{"type":"string"},"x:y/z:":{}}}
{"pattern":"\\:\\e"}
{"pattern":"\\:\\e"}
{"pattern":"^\\:\\e\\:$"}
{"pattern":"^\\:\\e\\:$"}
{"patternProperties":{"\\:\\e":{"type":"string"},"\\:\\e\\:":{}}}
{"patternProperties":{"\\:\\e":{"type":"string"},"\\:\\e\\:":{}}}
"""


@pytest.mark.parametrize(("source", "expected"), _pairs(TOOL_PARAMETER_CASES))
def test_tool_parameters_match_the_reference(source: str, expected: str) -> None:
    schema = json.loads(source)
    before = json.dumps(schema)
    assert js_dumps(normalize_tool_parameters(schema), None) == expected
    assert json.dumps(schema) == before  # the input is not modified


@pytest.mark.parametrize(("source", "expected"), _pairs(OUTPUT_SCHEMA_CASES))
def test_output_schemas_match_the_reference(source: str, expected: str) -> None:
    assert js_dumps(normalize_output_schema(json.loads(source)), None) == expected


# --- §8.2 examples of the spec table --------------------------------------------------------------------


@pytest.mark.parametrize(
    ("schema", "expected"),
    [
        ({}, {"type": "object", "properties": {}}),
        ({"properties": {"a": {"type": "string"}}}, {"properties": {"a": {"type": "string"}}, "type": "object"}),
        ({"required": ["a"]}, {"required": ["a"], "type": "object", "properties": {}}),
        ({"type": "object", "properties": [1]}, {"type": "object", "properties": {}}),
        (
            {"type": "object", "properties": {"xs": {"type": "array"}}},
            {"type": "object", "properties": {"xs": {"type": "array", "items": {}}}},
        ),
        (
            {
                "type": "object",
                "properties": {"a": {"$ref": "#/definitions/A"}},
                "definitions": {"A": {"type": "integer"}},
            },
            {"type": "object", "properties": {"a": {"type": "integer"}}},
        ),
        (
            {
                "type": "object",
                "properties": {"a": {"type": "string", "nullable": True, "example": "x", "readOnly": True}},
            },
            {"type": "object", "properties": {"a": {"type": ["string", "null"]}}},
        ),
        (
            {"type": "object", "properties": {"b": {"enum": ["x", "y"], "type": "string", "nullable": True}}},
            {"type": "object", "properties": {"b": {"enum": ["x", "y", None], "type": ["string", "null"]}}},
        ),
        (
            {
                "type": "object",
                "properties": {"c": {"anyOf": [{"type": "string"}], "nullable": True, "description": "C"}},
            },
            {
                "type": "object",
                "properties": {
                    "c": {
                        "anyOf": [{"anyOf": [{"type": "string"}], "description": "C"}, {"type": "null"}],
                        "description": "C",
                    }
                },
            },
        ),
        (
            {
                "anyOf": [
                    {"type": "object", "properties": {"a": {"type": "string"}}, "required": ["a"]},
                    {"type": "object", "properties": {"b": {"type": "number"}}, "required": ["a", "b"]},
                ]
            },
            {
                "type": "object",
                "properties": {"a": {"type": "string"}, "b": {"type": "number"}},
                "required": ["a"],
                "additionalProperties": True,
            },
        ),
        (
            {
                "oneOf": [
                    {"type": "object", "properties": {"kind": {"const": "x"}}},
                    {"type": "object", "properties": {"kind": {"const": "y"}}},
                ]
            },
            {
                "type": "object",
                "properties": {"kind": {"type": "string", "enum": ["x", "y"]}},
                "additionalProperties": True,
            },
        ),
        ({"allOf": [{"type": "object"}]}, {"allOf": [{"type": "object"}]}),
        ({"type": "string"}, {"type": "string"}),
        (
            {"type": "object", "properties": {"d": {"type": "string", "format": "date-time"}}, "$schema": "x"},
            {"type": "object", "properties": {"d": {"type": "string", "format": "date-time"}}, "$schema": "x"},
        ),
    ],
)
def test_tool_parameter_examples(schema: Any, expected: Any) -> None:
    result = normalize_tool_parameters(schema)
    assert result == expected
    assert list(result) == list(expected)


def test_inlined_refs_validate_like_the_original() -> None:
    # §11.8 #97
    jsonschema = pytest.importorskip("jsonschema")
    schema = {
        "type": "object",
        "properties": {"parent": {"$ref": "#/$defs/parentRequest", "description": "P"}},
        "$defs": {
            "parentRequest": {
                "oneOf": [
                    {"type": "object", "properties": {"page_id": {"type": "string"}}, "required": ["page_id"]},
                    {"type": "object", "properties": {"database_id": {"type": "string"}}, "required": ["database_id"]},
                ]
            }
        },
    }
    result = normalize_tool_parameters(schema)
    assert "$defs" not in result
    assert result["properties"]["parent"]["description"] == "P"
    jsonschema.Draft202012Validator(result).validate({"parent": {"page_id": "x"}})


def test_unresolved_local_refs_keep_the_definitions_and_remote_refs_stay() -> None:
    # §11.8 #98
    schema = {"type": "object", "properties": {"a": {"$ref": "#/$defs/Missing"}}, "$defs": {"B": {"type": "string"}}}
    assert normalize_tool_parameters(schema) == schema
    remote = {"type": "object", "properties": {"u": {"$ref": "https://x/y"}}}
    assert normalize_tool_parameters(remote) == remote


@pytest.mark.parametrize("value", [None, "x", 5, True])
def test_non_object_schemas_are_returned_unchanged(value: Any) -> None:
    assert normalize_tool_parameters(value) == value


# --- §8.3 / §4.11 output schemas ---------------------------------------------------------------------------


def test_draft_2020_12_is_recognised_only_by_the_exact_uri() -> None:
    assert is_draft_2020_12({"$schema": DRAFT_2020_12_SCHEMA})
    assert not is_draft_2020_12({"$schema": DRAFT_2020_12_SCHEMA + "#"})
    assert not is_draft_2020_12({"$schema": "http://json-schema.org/draft-07/schema#"})
    assert not is_draft_2020_12({})
    assert not is_draft_2020_12([])


def test_a_nullable_type_list_validates_null_and_reports_the_instance_path() -> None:
    # §11.8 #101 with the validator the adapters use (decision D14)
    jsonschema = pytest.importorskip("jsonschema")
    schema = {
        "$schema": DRAFT_2020_12_SCHEMA,
        "type": "object",
        "properties": {"v": {"type": ["string", "null"], "format": "email"}},
    }
    validator = jsonschema.Draft202012Validator(normalize_output_schema(schema))
    assert validator.is_valid({"v": None})
    errors = [(json_pointer(e.absolute_path), e.message) for e in validator.iter_errors({"v": 3})]
    assert format_validation_errors(errors).startswith("/v ")


def test_validation_error_texts() -> None:
    assert format_validation_errors([("/a/0", "must be string"), ("", "  ")]) == (
        "/a/0 must be string, schema validation failed"
    )
    assert format_validation_errors([]) == "schema validation failed"
    assert json_pointer(["a/b", 0, "c~d"]) == "/a~1b/0/c~0d"
    assert json_pointer([]) == ""
    assert invalid_schema_message("bad") == "Invalid MCP draft-2020-12 JSON Schema: bad"


def test_call_results_without_structured_content_are_rejected_unless_errors() -> None:
    # §4.11 / §11.4 #61
    def never(_: Any) -> str | None:
        raise AssertionError("not called")

    violation = check_call_result("typed", {"content": []}, never)
    assert violation == CallResultViolation(
        -32600, "Tool typed has an output schema but did not return structured content"
    )
    assert violation.rendered() == (
        "MCP error -32600: Tool typed has an output schema but did not return structured content"
    )
    assert check_call_result("typed", {"content": [], "isError": True}, never) is None
    assert check_call_result("typed", {"isError": "true"}, never) is not None


def test_invalid_structured_content_is_rejected_with_the_details() -> None:
    violation = check_call_result("typed", {"structuredContent": {"n": "x"}}, lambda _: "/n must be number")
    assert violation == CallResultViolation(
        -32602, "Structured content does not match the tool's output schema: /n must be number"
    )
    assert check_call_result("typed", {"structuredContent": {"n": 1}}, lambda _: None) is None
    assert check_call_result("typed", {"structuredContent": None, "isError": True}, lambda _: "bad") is not None


@pytest.mark.parametrize(
    ("pattern", "compiles"),
    [
        ("^a$", True),
        ("\\:", False),
        ("\\/", True),
        ("[\\:]", False),
        ("a{", False),
        ("a{2}", True),
        ("a{2,}", True),
        ("}", False),
        ("]", False),
        ("\\p{L}", True),
        ("\\p{L", False),
        ("\\u{1F600}", True),
        ("\\u12", False),
        ("\\x41", True),
        ("\\cA", True),
        ("\\c1", False),
        ("(?<n>a)\\k<n>", True),
        ("(?<=a)b", True),
        ("\\-", False),
        ("[\\-]", True),
        ("[\\b]", True),
        ("[\\B]", False),
        ("\\e", False),
        ("\\_", False),
        ("[^]", True),
        ("[]", True),
        ("(", False),
        ("a**", False),
        ("a*?", True),
        ("a++", False),
        ("a{2}+", False),
    ],
)
def test_the_unicode_regex_check_approximates_ecmascript(pattern: str, compiles: bool) -> None:
    # reference: new RegExp(pattern, "u"); 5 000 random patterns differ only on forward back-references
    assert ecmascript_unicode_pattern_compiles(pattern) is compiles


def test_pattern_repair_can_use_another_regex_check() -> None:
    schema = {"pattern": "^a\\:b$"}
    assert normalize_output_schema(schema, lambda p: "\\" not in p) == {"pattern": "^a:b$"}
    assert normalize_output_schema(schema, lambda _: False) == schema
