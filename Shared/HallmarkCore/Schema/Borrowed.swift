/// A reference to a part of a compiled schema that is copied and used without reference
/// counting.
///
/// Every thread that validates shares one compiled schema. Retaining and releasing its shared
/// nodes wrote their counts' cache lines from every core at once: two threads checked no more
/// token requests a second than one did, and counting was a third of a check (#55). A
/// `Borrowed` is a plain pointer, and ``with(_:)`` lends the object without counting. The
/// node that holds one also holds its object strongly (``SchemaNode/owned``), and nodes live as
/// long as their ``JSONSchema``.
struct Borrowed<Object: AnyObject & Sendable>: @unchecked Sendable {
    private let reference: Unmanaged<Object>

    /// Borrows `object`; the caller keeps it alive for as long as this is used.
    init(_ object: Object) { reference = .passUnretained(object) }

    /// Runs `body` with the object, neither retained nor released.
    @inline(__always)
    func with<Result>(_ body: (Object) -> Result) -> Result { reference._withUnsafeGuaranteedRef(body) }
}
