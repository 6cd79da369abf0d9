import HallmarkCore
import Testing

/// `Duration.nanoseconds` and `.milliseconds`: truncated, and saturating instead of trapping.
@Suite("Duration in whole units", .timeLimit(.minutes(1)))
struct DurationUnitsTests {
    @Test func wholeUnitsAreTruncated() {
        #expect(Duration.milliseconds(250).milliseconds == 250)
        #expect(Duration.milliseconds(250).nanoseconds == 250_000_000)
        #expect(Duration.seconds(1.5).milliseconds == 1500)
        #expect(Duration.nanoseconds(1_999_999).milliseconds == 1)
        #expect(Duration.nanoseconds(7).nanoseconds == 7)
        #expect(Duration.zero.milliseconds == 0)
    }

    @Test func whatDoesNotFitSaturates() {
        #expect(Duration.seconds(Int64.max / 1000 + 1).milliseconds == .max)
        #expect(Duration.seconds(Int64.max).nanoseconds == .max)
    }
}
