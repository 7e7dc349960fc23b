import Foundation
import RunAnywhere
import RunAnywhereTestSupport
import Testing

/// The deployment recipes in `deploy/`, checked as far as a machine without Docker or a cluster
/// allows: the compose file against the Compose Specification's schema, the Kubernetes manifests
/// against Kubernetes' own (strict: no unknown fields), and the image's root as the
/// Containerfile's build stage makes it (`deploy/image/build-root`, here packing the engines and
/// models set-up built and this build's binary): a server that runs on the packed files alone.
@Suite(.enabled(if: TestEnvironment.venvPython != nil, "needs the tests' venv: run scripts/setup --tests"))
struct DeploymentRecipeTests {
    static let repo = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
    static let deploy = repo.appendingPathComponent("deploy")

    @Test func theComposeFileFollowsTheComposeSpecification() throws {
        let python = try #require(TestEnvironment.venvPython).path
        let compose = Self.deploy.appendingPathComponent("compose.yaml").path
        let (status, output) = try CLIRunner.output(python, ["-m", "check_jsonschema", "--builtin-schema", "vendor.compose-spec", compose])
        #expect(status == 0, "\(output)")
        // The check can fail: a field the specification does not have is refused.
        let broken = try TestEnvironment.temporaryDirectory("compose").appendingPathComponent("compose.yaml")
        try String(contentsOfFile: compose, encoding: .utf8).replacingOccurrences(of: "stop_grace_period:", with: "stop_grace:")
            .write(to: broken, atomically: true, encoding: .utf8)
        let refused = try CLIRunner.output(python, ["-m", "check_jsonschema", "--builtin-schema", "vendor.compose-spec", broken.path])
        #expect(refused.0 != 0 && refused.1.contains("stop_grace"), "\(refused.1)")
        // The replicas share the database, and serve's flags in it exist.
        let text = try String(contentsOfFile: compose, encoding: .utf8)
        #expect(text.contains("RUNANYWHERE_DATABASE: postgres://") && text.contains("--api-key-stdin < /run/secrets/api_key"))
    }

    @Test func theKubernetesManifestsFollowKubernetesSchemas() throws {
        let python = try #require(TestEnvironment.venvPython).path
        let manifests = Self.deploy.appendingPathComponent("kubernetes/runanywhere.yaml").path
        let (status, output) = try CLIRunner.output(python, ["-m", "kubernetes_validate", "--strict", manifests])
        #expect(status == 0, "\(output)")
        for kind in ["secret", "deployment", "service", "poddisruptionbudget"] {
            #expect(output.contains("passed for resource \(kind)/runanywhere"), "\(output)")
        }
        let broken = try TestEnvironment.temporaryDirectory("kubernetes").appendingPathComponent("runanywhere.yaml")
        try String(contentsOfFile: manifests, encoding: .utf8).replacingOccurrences(of: "replicas: 2", with: "replicas: two")
            .write(to: broken, atomically: true, encoding: .utf8)
        let refused = try CLIRunner.output(python, ["-m", "kubernetes_validate", "--strict", broken.path])
        #expect(refused.0 != 0 && refused.1.contains("spec.replicas"), "\(refused.1)")
    }

    @Test(
        .enabled(if: TestEnvironment.engineInstalled, "needs the engines and the default model: run scripts/setup --tests"),
        .timeLimit(.minutes(5)))
    func theImagesRootRunsTheServerOnItsOwnFiles() throws {
        let containerfile = try String(contentsOf: Self.deploy.appendingPathComponent("Containerfile"), encoding: .utf8)
        #expect(containerfile.contains("RUN deploy/image/build-root /image") && containerfile.contains("COPY --from=build /image/ /"))
        let root = try TestEnvironment.temporaryDirectory("image-root")
        defer { try? FileManager.default.removeItem(at: root) }
        let (status, output) = try CLIRunner.output(
            Self.deploy.appendingPathComponent("image/build-root").path, [root.path, "--no-setup"],
            environment: ["RUNANYWHERE_BINARY": CLIRunner.binary.path])
        #expect(status == 0, "\(output)")

        // Every Swift runtime library the binary links is beside it (its run path has $ORIGIN):
        // searched there first (LD_LIBRARY_PATH comes before the run path, whose first entry is
        // this machine's toolchain), each resolves to the packed copy.
        let bin = root.appendingPathComponent("opt/runanywhere/bin")
        let binary = bin.appendingPathComponent("runanywhere").path
        let packedOnly = ["LD_LIBRARY_PATH": bin.path]
        let (_, linked) = try CLIRunner.output("/usr/bin/ldd", [binary], environment: packedOnly)
        let swiftLibraries = linked.split(separator: "\n").filter { $0.contains("libswift") || $0.contains("Foundation") }
        #expect(swiftLibraries.count >= 5, "\(linked)")
        for line in swiftLibraries {
            #expect(line.contains("=> \(bin.path)/"), "resolves to the packed copy: \(line)")
        }
        let home = root.appendingPathComponent("opt/runanywhere/home")
        let models = try FileManager.default.contentsOfDirectory(atPath: home.appendingPathComponent("models").path)
        #expect(models.contains(SDKConstants.Models.defaultModelID) && !models.contains { $0.hasSuffix("-fixture") }, "\(models)")

        // The packed binary finds its engines and models in the packed home, and answers.
        let environment = packedOnly.merging([
            "RUNANYWHERE_HOME": home.path, "RUNANYWHERE_DATA": root.appendingPathComponent("data").path, "RUNANYWHERE_LLAMA_LIB": "",
        ]) { $1 }
        let info = try CLIRunner.output(binary, ["info", "--json"], environment: environment)
        #expect(info.0 == 0, "\(info.1)")
        #expect(info.1.contains("\(home.path)/engines/llama.cpp/lib/libllama.so"), "llama.cpp from the packed home: \(info.1.prefix(2000))")
        let generated = try CLIRunner.output(binary, ["generate", "Hi", "--max-tokens", "2", "--threads", "1"], environment: environment)
        #expect(generated.0 == 0, "\(generated.1)")
    }
}
