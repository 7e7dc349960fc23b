import Foundation

/// A model the harness runs frame by frame. One task drives it: ``load()`` once, then
/// ``process(frame:)`` for each frame, then ``unload()``.
package protocol FrameWorkload: AnyObject {
    /// The payload's `model_id`.
    var modelID: String { get }
    /// The payload's `backend`: the engine that runs the frames.
    var backend: String { get }
    /// The size of the model's files in bytes (the payload's `model_file_mb`).
    var modelFileBytes: Int64 { get }
    /// Materializes and loads the model and generates the frames (`frameCount` of them), so
    /// that the first ``process(frame:)`` does the work of a frame and nothing else.
    func load(frameCount: Int) async throws
    /// Runs frame `index` (below the frame count). Returns false when the call did no frame's
    /// work (a language model's answer ended and the next one was started): such a call is
    /// neither counted nor timed as a frame.
    func process(frame index: Int) async throws -> Bool
    /// Unloads the model.
    func unload() async
}
