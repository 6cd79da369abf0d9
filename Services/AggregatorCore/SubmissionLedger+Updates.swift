import HallmarkPostgres

extension SubmissionLedger {
    /// An update of the submissions a batch names, joined to `submissions` by id: planned at each
    /// run (``PostgresQuery/plannedEachRun()``), with the batch's size and the table's.
    ///
    /// A prepared statement's generic plan is made once per connection, for ten ids and the table
    /// as it was then. Made during a trickle into a young table, it joined by scanning the table
    /// once per id when a burst came: the queue update took 6.4 s for 4,096 ids against 5,120
    /// validating rows, and the answer update read the whole table for a batch of one (#55,
    /// docs/operations.md §2, "Query plans on growing tables"). Planned with the batch, a small one
    /// probes the primary key and a large one hashes; planning costs a few milliseconds a batch
    /// at most.
    static func keyedUpdate(_ update: PostgresQuery) -> PostgresQuery { update.plannedEachRun() }
}
