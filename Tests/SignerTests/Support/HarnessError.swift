/// A test harness step failed (no binary, a service that exited or never logged).
struct HarnessError: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}
