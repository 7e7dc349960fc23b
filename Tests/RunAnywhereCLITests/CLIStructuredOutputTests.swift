import Foundation
import RunAnywhere
import RunAnywhereTestSupport
import Testing

/// `runanywhere generate --json-schema / --grammar / --json-object` on the default model.
@Suite(
    .processLane, .serialized,
    .enabled(if: TestEnvironment.engineInstalled, "needs llama.cpp and the default model: run scripts/setup --tests --build tests"))
struct CLIStructuredOutputTests {
    @Test func constrainedAnswersAndTheirErrors() throws {
        try CLIRunner.withData { cli, folder in
            let schema = folder.appendingPathComponent("person.json")
            try Data(
                #"{"type":"object","properties":{"name":{"type":"string","maxLength":20},"age":{"type":"integer","minimum":0,"maximum":99}},"required":["name","age"]}"#
                    .utf8
            )
            .write(to: schema)
            let base = ["generate", "--threads", "1", "--temperature", "0", "--max-tokens", "60"]
            let person = try cli.run(base + ["--json-schema", schema.path, "--json", "Invent a person."]).json()
            let answer = try JSONValue(parsing: try #require(person["text"] as? String))
            #expect(
                answer.objectValue?.keys == ["name", "age"] && answer["age"]?.numberValue.map { (0...99).contains($0) } == true, "\(person)"
            )
            let grammar = folder.appendingPathComponent("yesno.gbnf")
            try Data(#"root ::= "yes" | "no""#.utf8).write(to: grammar)
            let yesNo = try cli.run(base + ["--grammar", grammar.path, "Is fire hot?"])
            #expect(
                yesNo.status == 0 && ["yes", "no"].contains(yesNo.stdout.trimmingCharacters(in: .whitespacesAndNewlines)), "\(yesNo.stdout)"
            )
            // Any JSON object: valid once the model stops. (A model that loops inside the object
            // runs out of tokens with a valid prefix; how long its answer is depends on the CPU's
            // arithmetic, so the prompt asks for a short one and a cut answer is only checked to start as an object.)
            let object = try cli.run(
                base + [
                    "--max-tokens", "150", "--json-object", "--json",
                    "Give a JSON object with the keys name and age of a cat named Tom aged 3.",
                ]
            ).json()
            let objectText = try #require(object["text"] as? String)
            if object["stopReason"] as? String == "stop" {
                #expect(try JSONValue(parsing: objectText).objectValue != nil, "\(object)")
            } else {
                #expect(objectText.hasPrefix("{"), "\(object)")
            }

            let unsupported = folder.appendingPathComponent("email.json")
            try Data(#"{"type":"string","format":"email"}"#.utf8).write(to: unsupported)
            let notJSON = folder.appendingPathComponent("broken.json")
            try Data(#"{"type": "#.utf8).write(to: notJSON)
            let badGrammar = folder.appendingPathComponent("bad.gbnf")
            try Data("root ::= undefined-rule".utf8).write(to: badGrammar)
            for (flags, fragment) in [
                (["--json-schema", unsupported.path], "format 'email'"), (["--json-schema", notJSON.path], "broken.json: Not valid JSON"),
                (["--json-schema", folder.appendingPathComponent("none.json").path], "No such file"),
                (["--grammar", badGrammar.path], "not one llama.cpp can use"),
            ] {
                let output = try cli.run(base + flags + ["Hi"])
                #expect(output.status == 1 && output.stderr.contains(fragment), "\(flags): \(output.stderr)")
            }
            #expect(try cli.run(base + ["--json-object", "--grammar", grammar.path, "Hi"]).status == 64)
        }
    }
}
