import Foundation
import HallmarkCrypto

extension BenchGatewayCommand {
    /// E2EE-1: all at once, then paced.
    func sessionPhases(_ bench: GatewayBench) async throws {
        let clients = try await bench.makeSessions(sessions)
        let load = try GatewayBench.inbound(messages, sessions: clients, firstCounter: 0)
        let open = try GatewayBench.openRate(load, sessions: clients)
        let all = try await bench.sendInbound(load)
        printNow(
            String(
                format:
                    "E2EE inbound, %d messages over %d sessions sent at once: %.0f msgs/s (%d/%d decrypted); in-process HKDF + AES-GCM open, 1 thread: %.0f msgs/s → %.1f%%",
                messages, sessions, all.rate, all.decrypted, messages, open, 100 * all.rate / open))
        printCores(all.cost, messages: messages)
        guard all.decrypted == messages else { throw BenchError("not every inbound message was decrypted") }

        // Counters go on from where the first phase left each session; answers come on a topic
        // of their own (`reply_to`), so reading them never wades through the first phase's.
        let warm = Int(warmupSeconds * rate), counted = Int(pacedSeconds * rate)
        let paced = try GatewayBench.inbound(
            warm + counted, sessions: clients,
            firstCounter: UInt64((messages - 1) / sessions + 1),
            replyTo: bench.topic("plaintext.paced"))
        let steady = try await bench.sendInbound(paced, pace: rate)
        let after = Set(paced.dropFirst(warm).map(\.id.text))
        let l = GatewayBench.percentiles(steady.latencies.filter { after.contains($0.key) }.map(\.value))
        printNow(
            String(
                format:
                    "E2EE inbound at %.0f msgs/s for %.0f s after a %.0f s warm-up: p50 %.1f ms, p90 %.1f ms, p99 %.1f ms, max %.1f ms (%d/%d decrypted)",
                rate, pacedSeconds, warmupSeconds, l.p50, l.p90, l.p99, l.max, steady.decrypted, paced.count))
        printCores(steady.cost, messages: paced.count)
        guard steady.decrypted == paced.count else { throw BenchError("not every paced message was decrypted") }
    }

    /// ENC-1: JSON requests against the PBKDF2 bound, then ZIP bodies against AES-GCM alone.
    func envelopePhases(_ bench: GatewayBench, cores: Int) async throws {
        let estimate = SignerBench.measureBound(seconds: 2, threads: cores).wall
        let count = encryptRequests ?? min(3_000, max(100, Int(estimate * 10)))
        let requests = GatewayBench.encryptRequests(count, contentType: "application/json") {
            Data(#"{"job_id":"job-\#($0)","partner_params":{"user_id":"user-\#($0 % 97)"}}"#.utf8)
        }
        let before = SignerBench.measureBound(seconds: 3, threads: cores)
        let json = try await bench.sendEncrypt(requests)
        let after = SignerBench.measureBound(seconds: 3, threads: cores)
        let bound = (before.wall + after.wall) / 2
        printNow(
            String(
                format:
                    "ENC-1 JSON encrypt, %d requests at once: %.1f requests/s (%d/%d encrypted); batched PBKDF2 on %d threads around it: %.1f/s → %.0f%%",
                count, json.rate, json.encrypted, count, cores, bound, 100 * json.rate / bound))
        printCores(json.cost, messages: count)
        // The steadier measure on a machine whose speed drifts: CPU per request against CPU
        // per derivation (derivations per CPU second of the bound, measured the same way).
        let cpuBound = (before.cpu + after.cpu) / 2
        let perDerivation = Double(cores) / cpuBound, perRequest = json.cost.service / Double(count)
        printNow(
            String(
                format:
                    "ENC-1 JSON CPU: gateway %.1f ms per request vs %.1f ms per derivation → %.0f%% of the gateway's CPU is PBKDF2",
                perRequest * 1000, perDerivation * 1000, 100 * perDerivation / max(perRequest, 1e-9)))
        if let other = json.cost.otherCores {
            // The bound is every core deriving; what the broker, PostgreSQL and this bench used
            // was not the gateway's to use.
            let left = max(0, Double(cores) - other - json.cost.bench / json.cost.seconds)
            let leftBound = bound * left / Double(cores)
            printNow(
                String(
                    format: "ENC-1 JSON bound on the %.2f cores the others left: %.1f/s → throughput is %.0f%% of it",
                    left, leftBound, 100 * json.rate / max(leftBound, 1e-9)))
        }
        guard json.encrypted == count else { throw BenchError("not every encrypt request was encrypted") }

        let bodies = try (0..<zips).map { _ in try SecureRandom.bytes(zipBytes) }
        let seal = try GatewayBench.sealRate(bodies)
        let zipped = try await bench.sendEncrypt(
            GatewayBench.encryptRequests(zips, contentType: "application/zip") { bodies[$0] })
        let megabytes = Double(zips * zipBytes) / 1e6
        let zipRate = megabytes / zipped.cost.seconds
        printNow(
            String(
                format:
                    "ENC-1 ZIP, %d bodies of %d bytes at once: %.1f MB/s (%d/%d encrypted); in-process AES-GCM seal + envelope, 1 thread: %.1f MB/s → %.1f%%",
                zips, zipBytes, zipRate, zipped.encrypted, zips, seal / 1e6, 100 * zipRate / (seal / 1e6)))
        // Each body also costs one derivation: that bound in MB/s.
        let derivationBound = bound * Double(zipBytes) / 1e6
        printNow(
            String(
                format: "ENC-1 ZIP against one PBKDF2 derivation per body on %d threads: %.1f MB/s → %.0f%%",
                cores, derivationBound, 100 * zipRate / derivationBound))
        printCores(zipped.cost, messages: zips)
        guard zipped.encrypted == zips else { throw BenchError("not every ZIP was encrypted") }
    }

    /// Where the phase's CPU went.
    func printCores(_ cost: GatewayBench.Cost, messages: Int) {
        let other = cost.otherCores.map { String(format: "%.2f", $0) } ?? "?"
        printNow(
            String(
                format:
                    "  cores: gateway %.2f (%.0f µs CPU per message), broker + PostgreSQL + rest %@, this bench %.2f, over %.1f s",
                cost.service / cost.seconds, 1e6 * cost.service / Double(max(1, messages)), other,
                cost.bench / cost.seconds, cost.seconds))
    }
}
