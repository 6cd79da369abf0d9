/// A benchmark could not run (a missing binary, a service that did not start).
struct BenchError: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}
