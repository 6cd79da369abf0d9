extension Array where Element: Hashable {
    /// The elements without repeats, first occurrences kept in order.
    func uniqued() -> [Element] {
        var seen = Set<Element>()
        return filter { seen.insert($0).inserted }
    }
}
