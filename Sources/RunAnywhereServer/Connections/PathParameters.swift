import Hummingbird

extension ServerContext {
    /// The path parameter `name`, percent-decoded, as every route reads one: `%31` and `1` are the
    /// same segment to a client, and a model reference's id (`hf.co/OWNER/REPO:QUANT`) arrives as one
    /// segment, `hf.co%2FOWNER%2FREPO%3AQUANT`, as `encodeURIComponent` writes it. A segment that is
    /// not valid percent-encoding is taken as it is (and refused by the route's own check).
    func pathParameter(_ name: String) throws -> String {
        let raw = try parameters.require(name)
        return raw.removingPercentEncoding ?? raw
    }
}
