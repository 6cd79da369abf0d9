@testable import EdgeCore
import Synchronization
import Testing

/// ``SubmitAttempt`` and ``AnswerSlot``: the steps of a submission that no task waits on.
/// Answered once; the backend timeout answers 503 for the step under way and stops the steps
/// not yet begun, and leaves the outcome's wait alone.
@Suite("Edge submit attempt", .timeLimit(.minutes(1)))
struct SubmitAttemptTests {
    /// What an attempt answered, in order.
    final class Answers: Sendable {
        let list = Mutex<[Result<[UInt8], EdgeError>]>([])
        var all: [Result<[UInt8], EdgeError>] { list.withLock { $0 } }
        func attempt() -> SubmitAttempt { SubmitAttempt { result in self.list.withLock { $0.append(result) } } }
    }

    @Test func theTimeoutWhileOpeningAnswers503AndNoLaterStepBegins() {
        let answers = Answers()
        let attempt = answers.attempt()
        attempt.expire()
        #expect(!attempt.enter(.publishing))
        #expect(!attempt.finish(.success([1])))
        attempt.expire()
        #expect(answers.all.count == 1)
        guard case .failure(let error)? = answers.all.first else {
            Issue.record("not refused")
            return
        }
        #expect(error.code == .unavailable && error.reason.contains("receipt store"))
    }

    @Test func theTimeoutWhilePublishingNamesTheBroker() {
        let answers = Answers()
        let attempt = answers.attempt()
        #expect(attempt.enter(.publishing))
        attempt.expire()
        #expect(!attempt.enter(.waiting))
        guard case .failure(let error)? = answers.all.first else {
            Issue.record("not refused")
            return
        }
        #expect(error.reason.contains("broker") && answers.all.count == 1)
    }

    @Test func theTimeoutLeavesTheOutcomesWaitAlone() {
        let answers = Answers()
        let attempt = answers.attempt()
        #expect(attempt.enter(.publishing) && attempt.enter(.waiting))
        attempt.expire()
        #expect(answers.all.isEmpty)
        #expect(attempt.finish(.success([7])))
        #expect(!attempt.finish(.success([8])))
        guard case .success(let body)? = answers.all.first else {
            Issue.record("not answered")
            return
        }
        #expect(body == [7] && answers.all.count == 1)
    }

    @Test func aSlotTellsItsWaiterOnceWhicheverComesFirst() async {
        let told = Mutex<[[UInt8]?]>([])
        let early = AnswerSlot()
        early.whenFilled { value in told.withLock { $0.append(value) } }
        #expect(told.withLock { $0.isEmpty })
        early.fill([1])
        early.fill(nil)  // the deadline, after the answer: ignored
        let late = AnswerSlot()
        late.fill(nil)
        late.whenFilled { value in told.withLock { $0.append(value) } }
        #expect(told.withLock { $0 } == [[1], nil])
        let awaited = AnswerSlot()
        async let value = awaited.value()
        awaited.fill([2])
        #expect(await value == [2])
    }
}
