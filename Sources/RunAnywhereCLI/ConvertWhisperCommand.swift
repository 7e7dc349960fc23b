import ArgumentParser
import Foundation
import RunAnywhere
import RunAnywhereWhisperCpp

extension ModelsCommand {
    struct ConvertWhisper: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "convert-whisper", abstract: "Convert a CTranslate2 Whisper model folder into a whisper.cpp ggml file."
        )
        @OptionGroup var global: GlobalOptions
        @Argument(help: "The CTranslate2 folder (model.bin, vocabulary.txt).") var directory: String
        @Option(name: .long, help: "The ggml file to write.") var output: String
        @Option(
            name: .customLong("mel-filters"),
            help: "A ggml Whisper file to copy the mel filters from (default: the one scripts/setup installs).")
        var melFilters: String?

        func run() async throws {
            try await CLIContext.run(global) { _ in
                let reference =
                    melFilters.map { URL(fileURLWithPath: $0) }
                    ?? RuntimeConfiguration.homeDirectory().appendingPathComponent("engines/whisper.cpp/share/for-tests-ggml-tiny.en.bin")
                let report = try WhisperModelConverter.convert(
                    ct2Directory: URL(fileURLWithPath: directory), output: URL(fileURLWithPath: output), melFiltersFrom: reference
                )
                Terminal.write(
                    "Wrote \(output): \(report.tensorCount) tensors, \(report.vocabularySize) tokens, \(Terminal.bytes(report.bytes))\n")
            }
        }
    }
}
