import Foundation
import HallmarkCore
import Testing

/// Every keyword the validator supports accepts what it should and refuses what it should;
/// every other keyword, and every malformed rule, is refused when compiling.
@Suite(.timeLimit(.minutes(2)))
struct JSONSchemaKeywordTests {
    func schema(_ json: String) throws -> JSONSchema { try JSONSchema(json: json) }
    func value(_ json: String) throws -> JSONValue { try JSONReader.parse(Array(json.utf8)) }

    /// Checks each instance (JSON text) against the schema.
    func check(
        _ schemaJSON: String, accepts good: [String], refuses bad: [String],
        sourceLocation: SourceLocation = #_sourceLocation
    ) throws {
        let s = try schema(schemaJSON)
        for text in good {
            let violation = s.validate(try value(text))
            #expect(
                violation == nil, "\(schemaJSON) should accept \(text): \(violation?.description ?? "")",
                sourceLocation: sourceLocation)
        }
        for text in bad {
            #expect(s.validate(try value(text)) != nil, "\(schemaJSON) should refuse \(text)", sourceLocation: sourceLocation)
        }
    }

    @Test func type() throws {
        try check(#"{"type":"string"}"#, accepts: [#""a""#, #""""#], refuses: ["1", "null", "true", "[]", "{}"])
        try check(
            #"{"type":"integer"}"#, accepts: ["0", "-7", "123456789012345678901234567890"],
            refuses: ["1.0", "1e2", "1.5", #""1""#, "true"])
        try check(#"{"type":"number"}"#, accepts: ["0", "1.5", "-2e-3"], refuses: [#""1""#, "null"])
        try check(#"{"type":"boolean"}"#, accepts: ["true", "false"], refuses: ["0", #""true""#])
        try check(#"{"type":"null"}"#, accepts: ["null"], refuses: ["0", #""""#])
        try check(#"{"type":"array"}"#, accepts: ["[]", "[1]"], refuses: ["{}"])
        try check(#"{"type":"object"}"#, accepts: ["{}"], refuses: ["[]"])
        try check(#"{"type":["string","null"]}"#, accepts: [#""a""#, "null"], refuses: ["1"])
    }

    @Test func objectKeywords() throws {
        try check(
            #"{"properties":{"a":{"type":"integer"}},"required":["a"],"additionalProperties":false}"#,
            accepts: [#"{"a":1}"#, "[]"], refuses: ["{}", #"{"a":"1"}"#, #"{"a":1,"b":2}"#])
        try check(
            #"{"properties":{"a":true},"additionalProperties":{"type":"string"}}"#,
            accepts: [#"{"a":1,"b":"x"}"#], refuses: [#"{"a":1,"b":2}"#])
        try check(
            #"{"propertyNames":{"pattern":"^[a-z]+$","maxLength":3}}"#,
            accepts: [#"{"abc":1}"#, "{}"], refuses: [#"{"Abc":1}"#, #"{"abcd":1}"#])
        try check(
            #"{"minProperties":1,"maxProperties":2}"#,
            accepts: [#"{"a":1}"#, #"{"a":1,"b":2}"#], refuses: ["{}", #"{"a":1,"b":2,"c":3}"#])
        try check(#"{"maxProperties":1}"#, accepts: ["{}"], refuses: [#"{"a":1,"b":2}"#])
    }

    /// `additionalProperties: false`, `properties` and `required` are checked in one pass, yet
    /// report what the keyword order reports: an unnamed member, then a member that breaks its
    /// subschema, then the first required member missing (in the order `required` lists them).
    @Test func objectRulesReportTheirFirstViolationInKeywordOrder() throws {
        let s = try schema(
            #"{"properties":{"a":{"type":"integer"},"b":true,"c":true},"required":["c","a"],"additionalProperties":false}"#)
        func violation(_ json: String) throws -> SchemaViolation? { s.validate(try value(json)) }
        #expect(try violation(#"{"a":"x","c":1,"zz":1}"#)?.reason == "has a member not in the schema (zz)")
        #expect(try violation(#"{"a":"x"}"#)?.path == "$.a")
        #expect(try violation("{}")?.reason == "lacks required member c")
        #expect(try violation(#"{"c":1}"#)?.reason == "lacks required member a")
        #expect(try violation(#"{"a":1,"c":null}"#) == nil)
        #expect(try violation(#"{"a":1,"b":[],"c":{}}"#) == nil)
        // A required member the schema does not describe, open or closed.
        try check(
            #"{"properties":{"a":{"type":"integer"}},"required":["a","d"]}"#,
            accepts: [#"{"a":1,"d":0}"#], refuses: [#"{"a":1}"#, #"{"d":0}"#, #"{"a":"1","d":0}"#])
        try check(
            #"{"properties":{"a":true},"required":["d"],"additionalProperties":false}"#,
            accepts: [], refuses: ["{}", #"{"d":0}"#, #"{"a":0}"#])
        // Another keyword between them keeps its place in the order.
        let t = try schema(#"{"additionalProperties":false,"oneOf":[{"required":["x"]}],"properties":{"y":{"type":"string"}}}"#)
        #expect(t.validate(try value(#"{"y":1}"#))?.reason == "matches 0 of the oneOf alternatives, not 1")
    }

    @Test func arrayKeywords() throws {
        try check(#"{"items":{"type":"integer","minimum":0}}"#, accepts: ["[]", "[0,1]"], refuses: ["[0,-1]", #"[0,"1"]"#])
        try check(#"{"minItems":1,"maxItems":2}"#, accepts: ["[1]", "[1,2]"], refuses: ["[]", "[1,2,3]"])
        try check(#"{"maxItems":1}"#, accepts: ["[]"], refuses: ["[1,2]"])
        try check(
            #"{"uniqueItems":true}"#, accepts: ["[1,2]", #"[[1],[2]]"#, #"[{"a":1},{"a":2}]"#, #"[1,"1"]"#],
            refuses: ["[3,3,3]", "[1,1.0]", "[0,-0]", #"[{"a":1},{"a":1.0}]"#, #"[[1,2],[1,2]]"#])
        try check(#"{"uniqueItems":false}"#, accepts: ["[1,1]"], refuses: [])
    }

    @Test func valueKeywords() throws {
        try check(
            #"{"enum":["a",1,null,{"x":[true]}]}"#, accepts: [#""a""#, "1", "1.0", "null", #"{"x":[true]}"#],
            refuses: [#""A""#, "2", #"{"x":[false]}"#, "true"])
        try check(#"{"const":"v1"}"#, accepts: [#""v1""#], refuses: [#""V1""#, #""v1 ""#])
        try check(#"{"const":1}"#, accepts: ["1", "1.0", "10e-1"], refuses: ["2", #""1""#])
        // An enum of strings only is checked as a set of them: still nothing but strings.
        try check(
            #"{"enum":["ab","x","hallmark.token.request.v1"]}"#,
            accepts: [#""ab""#, #""x""#, #""hallmark.token.request.v1""#],
            refuses: [#""AB""#, #""ab ""#, #""""#, "1", "null", #"["x"]"#, #"{"x":1}"#])
    }

    /// `required` counts the members it names in place: repeated names, names of one length,
    /// members it does not name, and the first missing name in the order the rule lists them.
    @Test func requiredCountsTheMembersItNames() throws {
        let s = try schema(#"{"required":["bb","a","cc","a","dd_long_member_name"]}"#)
        #expect(s.validate(try value(#"{"a":1,"bb":2,"cc":3,"dd_long_member_name":4,"ee":5}"#)) == nil)
        let expected = [
            (#"{}"#, "bb"), (#"{"bb":1,"cc":2,"dd_long_member_name":3,"aa":4}"#, "a"),
            (#"{"a":1,"bb":2,"dd":3,"dd_long_member_name":4}"#, "cc"),
            (#"{"a":1,"bb":2,"cc":3,"dd_long_member_nam":4,"e":5}"#, "dd_long_member_name"),
        ]
        for (text, missing) in expected {
            #expect(s.validate(try value(text))?.reason == "lacks required member \(missing)", "\(text)")
        }
    }

    /// One compiled schema is shared by every thread that validates and is read without
    /// reference counting: many tasks at once get exactly the answers one alone gets.
    @Test func manyThreadsGetTheAnswersOneGets() async throws {
        let s = try schema(
            #"{"type":"object","properties":{"k":{"enum":["x","y"]},"p":{"pattern":"^(?:[a-f]{8}|[0-9]{4}-[0-9]{2}Z)$"},"n":{"type":"integer","minimum":1}},"required":["k"],"oneOf":[{"required":["p"]},{"required":["n"]}],"additionalProperties":false}"#
        )
        let texts = [
            #"{"k":"x","p":"abcdefab"}"#, #"{"k":"y","n":3}"#, #"{"k":"x","p":"1234-56Z"}"#, #"{"k":"z","n":3}"#,
            #"{"k":"x","p":"abcdefaX"}"#, #"{"k":"x","p":"abcdefab","n":3}"#, #"{"k":"x"}"#, #"{"k":"x","n":0}"#,
            #"{"k":"x","q":1,"n":1}"#, #"{"n":2}"#,
        ]
        let values = try texts.map(value)
        let alone = values.map { s.validate($0) }
        #expect(alone.map { $0 == nil } == [true, true, true, false, false, false, false, false, false, false])
        let together = await withTaskGroup(of: Bool.self) { group in
            for _ in 0..<8 {
                group.addTask {
                    (0..<500).allSatisfy { i in s.validate(values[i % values.count]) == alone[i % values.count] }
                }
            }
            return await group.reduce(true) { $0 && $1 }
        }
        #expect(together)
    }

    @Test func stringKeywords() throws {
        try check(
            #"{"minLength":2,"maxLength":3}"#, accepts: [#""ab""#, #""abc""#, #""\u00e9\u00e9""#, "5"],
            refuses: [#""a""#, #""abcd""#])
        // Lengths count Unicode scalars, not UTF-8 bytes or UTF-16 units.
        try check(#"{"maxLength":1}"#, accepts: [#""\ud83d\ude00""#, #""\u00e9""#], refuses: [#""ab""#])
        try check(
            #"{"minLength":2,"maxLength":2}"#, accepts: [#""\u20ac\u20ac""#, #""a\ud83d\ude00""#],
            refuses: [#""\u20ac""#, #""\u20ac\u20ac\u20ac""#, #""\ud83d\ude00""#])
        try check(#"{"pattern":"^[0-9a-f]{4}$"}"#, accepts: [#""00ff""#, "1"], refuses: [#""00FF""#, #""00f""#])
        try check(#"{"pattern":"b"}"#, accepts: [#""abc""#], refuses: [#""ac""#])
    }

    @Test func numberKeywords() throws {
        try check(
            #"{"minimum":0,"maximum":999}"#, accepts: ["0", "999", "0.0", "998.9", #""x""#],
            refuses: ["-1", "1000", "999.01", "-0.5", "1e3"])
        try check(#"{"minimum":0.5,"maximum":2}"#, accepts: ["0.5", "1", "2", "2.0"], refuses: ["0.49", "2.01", "0", "3"])
        // Beyond 2^53 the bounds hold to the last digit.
        try check(
            #"{"type":"integer","minimum":-9223372036854775808,"maximum":9223372036854775807}"#,
            accepts: ["9223372036854775807", "-9223372036854775808", "0", "-0"],
            refuses: [
                "9223372036854775808", "-9223372036854775809", "18446744073709551615",
                "99999999999999999999999999",
            ])
        try check(#"{"maximum":18446744073709551615}"#, accepts: ["18446744073709551615"], refuses: ["18446744073709551616"])
    }

    @Test func formatsAndContentEncoding() throws {
        try check(
            #"{"format":"uuid"}"#,
            accepts: [#""6ba7b810-9dad-11d1-80b4-00c04fd430c8""#, #""6BA7B810-9DAD-11D1-80B4-00C04FD430C8""#, "1"],
            refuses: [
                #""6ba7b8109dad11d180b400c04fd430c8""#, #""6ba7b810-9dad-11d1-80b4-00c04fd430c""#,
                #""{6ba7b810-9dad-11d1-80b4-00c04fd430c8}""#, #""g ba7b810-9dad-11d1-80b4-00c04fd430c8""#,
            ])
        try check(
            #"{"format":"date-time"}"#,
            accepts: [#""2025-01-01T00:00:00.000Z""#, #""2024-02-29T23:59:59Z""#, #""0001-01-01T00:00:00.123456789Z""#],
            refuses: [
                #""2025-02-30T00:00:00Z""#, #""0000-01-01T00:00:00Z""#, #""99999-01-01T00:00:00Z""#,
                #""2025-01-01T00:00:00+05:30""#, #""2025-01-01t00:00:00z""#, #""2023-02-29T00:00:00Z""#,
            ])
        try check(
            #"{"contentEncoding":"base64","contentMediaType":"application/json"}"#,
            accepts: [#""""#, #""YQ==""#, #""YWI=""#, #""YWJj""#, "7"],
            refuses: [#""YQ===""#, #""YQ=""#, #""YR==""#, #""YWJ=""#, #""Y Q==""#, #""YQ""#, #""YQ-_""#])
    }

    @Test func combinators() throws {
        try check(#"{"oneOf":[{"type":"integer"},{"minimum":2}]}"#, accepts: ["1", "2.5"], refuses: ["3", "1.5"])
        try check(#"{"anyOf":[{"type":"integer"},{"type":"string"}]}"#, accepts: ["1", #""a""#], refuses: ["1.5"])
        try check(#"{"allOf":[{"minimum":1},{"maximum":2}]}"#, accepts: ["1", "2"], refuses: ["0", "3"])
        try check(#"{"not":{"required":["a","b"]}}"#, accepts: [#"{"a":1}"#, "{}"], refuses: [#"{"a":1,"b":2}"#])
        try check(
            #"{"if":{"properties":{"k":{"const":"x"}},"required":["k"]},"then":{"required":["x"]},"else":{"required":["y"]}}"#,
            accepts: [#"{"k":"x","x":1}"#, #"{"k":"z","y":1}"#, #"{"y":1}"#], refuses: [#"{"k":"x"}"#, #"{"k":"z","x":1}"#])
        try check(#"{"if":{"const":1},"then":false}"#, accepts: ["2"], refuses: ["1"])
        try check(#"{"properties":{"any":true,"none":false}}"#, accepts: [#"{"any":[1]}"#], refuses: [#"{"none":1}"#])
        try check(
            ##"{"$defs":{"pos":{"type":"integer","minimum":1}},"properties":{"n":{"$ref":"#/$defs/pos"}}}"##,
            accepts: [#"{"n":1}"#], refuses: [#"{"n":0}"#])
        try check(
            #"{"$schema":"https://json-schema.org/draft/2020-12/schema","$id":"x","$comment":"c","title":"t","description":"d","examples":[1],"default":1}"#,
            accepts: ["1", #""anything""#], refuses: [])
    }

    @Test(arguments: [
        #"{"dependentRequired":{"a":["b"]}}"#, #"{"format":"email"}"#, #"{"contentEncoding":"base32"}"#,
        #"{"pattern":"(?=x)"}"#, ##"{"$ref":"#/$defs/missing"}"##, #"{"$ref":"other.json"}"#,
        ##"{"$defs":{"a":{"$ref":"#/$defs/a"}},"$ref":"#/$defs/a"}"##, #"{"then":{}}"#, #"{"required":["a",1]}"#,
        #"{"required":"a"}"#, #"{"minLength":-1}"#, #"{"maxItems":1.5}"#, #"{"minimum":"0"}"#, #"{"type":"int"}"#,
        #"{"type":[]}"#, #"{"enum":"a"}"#, #"{"oneOf":[]}"#, #"{"items":[{}]}"#, #"{"properties":{"a":1}}"#,
        #"{"exclusiveMinimum":0}"#, #"{"patternProperties":{}}"#, #"{"prefixItems":[]}"#, #"{"unevaluatedProperties":false}"#,
        #"{"$defs":{"unused":{"format":"hostname"}}}"#, "[]", "1", "true",
    ])
    func refusesWhatItCannotCheck(_ json: String) {
        #expect(throws: JSONSchemaError.self, "\(json)") { try JSONSchema(json: json) }
    }

    /// A `$ref` into another document resolves against the schema's `$id` (RFC 3986), and
    /// that document's own relative `$ref`s against its `$id`; bundling gives the same checks.
    @Test func referencesIntoOtherDocuments() throws {
        let shared =
            ##"{"$id":"https://x.test/s/common/types.json","$defs":{"id":{"$ref":"#/$defs/hex"},"hex":{"pattern":"^[0-9a-f]+$","maxLength":4}}}"##
        let text = #"{"$id":"https://x.test/s/m.json","properties":{"a":{"$ref":"common/types.json#/$defs/id"}}}"#
        let compiled = try JSONSchema(json: text, referenced: [shared])
        #expect(compiled.validate(try value(#"{"a":"00ff"}"#)) == nil)
        #expect(compiled.validate(try value(#"{"a":"00FF"}"#))?.path == "$.a")
        #expect(compiled.validate(try value(#"{"a":"00ff0"}"#))?.path == "$.a")
        let bundled = try JSONSchema.bundle(try value(text), referenced: [try value(shared)])
        #expect(bundled["properties"]?["a"]?["$ref"] == .string("#/$defs/id"))
        #expect(bundled["$defs"]?["id"]?["$ref"] == .string("#/$defs/hex"))
        let alone = try JSONSchema(bundled)
        for instance in [#"{"a":"00ff"}"#, #"{"a":"00FF"}"#, #"{"a":"00ff0"}"#] {
            #expect((alone.validate(try value(instance)) == nil) == (compiled.validate(try value(instance)) == nil))
        }
        // Not there, or relative to the wrong base, or a clash of names when bundled.
        #expect(throws: JSONSchemaError.self) { try JSONSchema(json: text) }
        #expect(throws: JSONSchemaError.self) {
            try JSONSchema(json: #"{"$id":"https://x.test/m.json","$ref":"common/types.json#/$defs/id"}"#, referenced: [shared])
        }
        #expect(throws: JSONSchemaError.self) { try JSONSchema(json: text, referenced: [#"{"$defs":{}}"#]) }
        #expect(throws: JSONSchemaError.self) {
            try JSONSchema.bundle(
                try value(#"{"$id":"https://x.test/s/m.json","$defs":{"hex":{}},"$ref":"common/types.json#/$defs/id"}"#),
                referenced: [try value(shared)])
        }
    }

    /// The alternatives of oneOf, anyOf, not and if are checked without building their reasons;
    /// what reaches the caller still names the combinator's own rule, and a `then` or `else`
    /// branch's violation its path and reason in full.
    @Test func combinatorsReportTheirOwnRuleAndBranchesTheirFullViolation() throws {
        let s = try schema(
            #"{"properties":{"a":{"oneOf":[{"type":"string"},{"type":"integer"}]},"b":{"anyOf":[{"required":["x"]},{"required":["y"]}]},"c":{"not":{"type":"null"}},"d":{"if":{"required":["k"]},"then":{"properties":{"k":{"type":["string","null"]}}}},"e":{"type":["integer","boolean"]}}}"#
        )
        let expected: [(String, String, String)] = [
            (#"{"a":true}"#, "$.a", "matches 0 of the oneOf alternatives, not 1"),
            (#"{"b":{"z":1}}"#, "$.b", "matches none of anyOf"),
            (#"{"c":null}"#, "$.c", "matches a forbidden schema"),
            (#"{"d":{"k":1}}"#, "$.d.k", "is not of type null/string"),
            (#"{"e":1.5}"#, "$.e", "is not of type boolean/integer"),
        ]
        for (text, path, reason) in expected {
            let v = try #require(s.validate(try value(text)), "\(text)")
            #expect(v.path == path && v.reason == reason, "\(text): \(v)")
        }
        #expect(s.validate(try value(#"{"a":"x","b":{"y":1},"c":0,"d":{"k":null},"e":true}"#)) == nil)
    }

    @Test func violationsNameThePathAndRuleNeverTheValue() throws {
        let s = try schema(
            #"{"properties":{"token":{"type":"object","properties":{"nonce":{"pattern":"^[0-9a-f]+$"}}},"list":{"items":{"maxLength":2}}},"additionalProperties":false}"#
        )
        let secret = "S3CRET-VALUE-9f8e"
        let v1 = try #require(s.validate(try value(#"{"token":{"nonce":"\#(secret)"}}"#)))
        #expect(v1.path == "$.token.nonce" && !v1.description.contains(secret))
        let v2 = try #require(s.validate(try value(#"{"list":["ok","\#(secret)"]}"#)))
        #expect(v2.path == "$.list[1]" && !v2.description.contains(secret))
        let v3 = try #require(s.validate(try value(#"{"\#(secret)\u0000":1}"#)))
        #expect(!v3.description.contains(secret) && !v3.description.contains("\u{0}"))
    }
}
