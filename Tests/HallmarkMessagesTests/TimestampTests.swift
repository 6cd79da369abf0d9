import Foundation
import HallmarkCore
import HallmarkTestSupport
import Testing

/// Hallmark's one timestamp format: RFC 3339 in UTC, strictly.
@Suite(.timeLimit(.minutes(1)))
struct TimestampTests {
    @Test(arguments: [
        ("2025-01-01T00:00:00Z", 1_735_689_600.0), ("2025-01-01T00:00:00.000Z", 1_735_689_600.0),
        ("2024-02-29T12:00:00Z", 1_709_208_000.0), ("2000-02-29T00:00:00Z", 951_782_400.0),
        ("1970-01-01T00:00:00.5Z", 0.5), ("1969-12-31T23:59:59Z", -1.0),
        ("0001-01-01T00:00:00Z", -62_135_596_800.0), ("9999-12-31T23:59:59Z", 253_402_300_799.0),
        ("2025-06-30T23:59:59.123456789Z", 1_751_327_999.123456789), ("2025-12-31T23:59:59.9Z", 1_767_225_599.9),
    ])
    func parsesValidTimestamps(_ text: String, _ seconds: Double) throws {
        let date = try #require(Timestamp.parse(text), "\(text)")
        #expect(abs(date.timeIntervalSince1970 - seconds) < 1e-6, "\(text)")
    }

    @Test(arguments: [
        "2025-02-30T00:00:00Z", "2023-02-29T00:00:00Z", "1900-02-29T00:00:00Z", "2025-04-31T00:00:00Z", "2025-13-01T00:00:00Z",
        "2025-00-10T00:00:00Z", "2025-01-00T00:00:00Z", "0000-01-01T00:00:00Z", "99999-01-01T00:00:00Z", "+2025-01-01T00:00:00Z",
        "2025-01-01T00:00:00+05:30", "2025-01-01T00:00:00+00:00", "2025-01-01T00:00:00", "2025-01-01t00:00:00Z",
        "2025-01-01T00:00:00z", "2025-01-01 00:00:00Z", "2025-01-01T24:00:00Z", "2025-01-01T23:60:00Z", "2025-01-01T23:59:60Z",
        "2025-01-01T00:00:00.Z", "2025-01-01T00:00:00.1234567890Z", "2025-01-01T00:00:00,5Z", "2025-1-01T00:00:00Z",
        " 2025-01-01T00:00:00Z", "2025-01-01T00:00:00Z ", "2025-01-01T00:00:00ZZ", "", "2025-01-01", "２０２５-01-01T00:00:00Z",
    ])
    func refusesEverythingElse(_ text: String) {
        #expect(Timestamp.parse(text) == nil, "\(text)")
    }

    @Test func fractionsOfOneToNineDigits() throws {
        for digits in 1...9 {
            let text = "2025-01-01T00:00:00." + String(repeating: "5", count: digits) + "Z"
            let date = try #require(Timestamp.parse(text))
            let expected = Double("0." + String(repeating: "5", count: digits))!
            #expect(abs(date.timeIntervalSince1970 - 1_735_689_600 - expected) < 1e-6)
        }
    }

    @Test func formatRoundTripsThroughParse() throws {
        // Values a Date holds exactly (it counts from 2001), so no rounding differs.
        for seconds in [0.0, 1.125, 951_782_400.25, 1_735_689_599.875, -1.5, 253_402_300_799] {
            let date = Date(timeIntervalSince1970: seconds)
            let text = Timestamp.format(date)
            #expect(text.count == 24 && text.hasSuffix("Z"))
            let back = try #require(Timestamp.parse(text))
            #expect(abs(back.timeIntervalSince1970 - (seconds * 1000).rounded(.down) / 1000) < 1e-6, "\(text)")
        }
        #expect(Timestamp.format(Date(timeIntervalSince1970: 0)) == "1970-01-01T00:00:00.000Z")
    }

    /// A time is written into its bytes at once and its instant computed as the parser would
    /// from them: the same text as padding each field (the way it was written before), and
    /// the very `Date` that parsing the text gives.
    @Test func writtenAsPaddedFieldsAndParsedBack() throws {
        var rng = SplitMix64(seed: 0x5449_4D45)
        let lowest = -62_135_596_800_000 as Int64, highest = 253_402_300_799_999 as Int64
        var samples: [Int64] = [lowest, highest, 0, -1, 1, 951_782_400_000, 1_735_689_599_999]
        for _ in 0..<20_000 { samples.append(Int64.random(in: lowest...highest, using: &rng)) }
        for millis in samples {
            let date = Date(timeIntervalSince1970: Double(millis) / 1000)
            let timestamp = Timestamp(date)
            let truncated = Int64((date.timeIntervalSince1970 * 1000).rounded(.down))
            let (days, msOfDay) = CivilCalendar.floorDivide(truncated, 86_400_000)
            let (y, m, d) = CivilCalendar.date(days: days)
            let s = msOfDay / 1000, pad = CivilCalendar.pad
            let padded =
                pad(y, 4) + "-" + pad(m, 2) + "-" + pad(d, 2) + "T" + pad(s / 3600, 2) + ":" + pad(s / 60 % 60, 2) + ":"
                + pad(s % 60, 2) + "." + pad(msOfDay % 1000, 3) + "Z"
            #expect(timestamp.text == padded, "\(millis)")
            #expect(Timestamp.format(date) == padded, "\(millis)")
            let parsed = try #require(Timestamp.parse(padded))
            #expect(timestamp.date.timeIntervalSince1970.bitPattern == parsed.timeIntervalSince1970.bitPattern, "\(millis)")
        }
    }
}
