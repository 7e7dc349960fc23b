import Hummingbird

/// The model id in the path's `id` parameter, percent-decoded: a reference's id
/// (`hf.co/OWNER/REPO:QUANT`) arrives as one path segment, `hf.co%2FOWNER%2FREPO%3AQUANT`, as
/// `encodeURIComponent` writes it. A segment that is not valid percent-encoding is taken as it is.
func modelIDParameter(_ context: ServerContext) throws -> String {
    let raw = try context.parameters.require("id")
    return raw.removingPercentEncoding ?? raw
}
