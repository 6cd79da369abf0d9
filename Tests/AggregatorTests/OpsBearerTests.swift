import Testing
@testable import EdgeCore

/// The `/ops` data's credentials (issue #53, 10): the scheme in any case, as RFC 9110 §11.1 says,
/// and the token exactly as written.
@Suite(.timeLimit(.minutes(1)))
struct OpsBearerTests {
    @Test func theSchemeIsCaseInsensitive() {
        for credentials in ["Bearer t0k", "bearer t0k", "BEARER t0k", "bEaReR   t0k"] {
            #expect(OpsPage.bearerToken(credentials) == "t0k", "\(credentials)")
        }
        for credentials in ["Bearer", "Bearer ", "Basic t0k", "Bearert0k", "t0k", "", " Bearer t0k", "Bear t0k"] {
            #expect(OpsPage.bearerToken(credentials) == nil, "\(credentials)")
        }
        // The token is compared as written: trailing spaces and case are its own.
        #expect(OpsPage.bearerToken("Bearer T0K ") == "T0K ")
    }
}
