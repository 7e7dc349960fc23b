import Foundation

/// Where a ``RAGSession`` keeps its collections, documents, chunks and vectors: an SQLite file
/// (``SQLiteRAGStore``, the default) or a PostgreSQL database (`PostgresRAGStore`, in
/// RunAnywherePostgres). Both keep the same rows and behave alike: every change is one
/// transaction, so a failure leaves the collections as they were; an unknown collection or
/// document throws ``ErrorCode/fileNotFound``; vectors are little-endian Float32s
/// (``VectorBlob``) compared by cosine similarity, every one of a collection (brute force).
package protocol RAGStore: Sendable {
    /// Where it is, for messages: the file's path, or the database's URL without its password.
    var location: String { get }

    /// The collection `name`, nil when there is none.
    func collection(named name: String) async throws -> RAGCollection?

    /// Every collection, by name.
    func collections() async throws -> [RAGCollection]

    /// The documents of the collection `collection`, by path; an unknown collection throws ``ErrorCode/fileNotFound``.
    func documents(in collection: String) async throws -> [RAGDocument]

    /// Removes the document `path` of `collection` with its chunks and vectors.
    func removeDocument(path: String, collection: String) async throws

    /// Removes the collection `name` with its documents, chunks and vectors.
    func removeCollection(_ name: String) async throws

    /// Every chunk row in the store, whichever its collection: what the tests count to see that
    /// removing frees the vectors.
    func chunkRowCount() async throws -> Int

    /// Stores `documents` in the collection `collection` in one transaction, creating the
    /// collection (made with `embeddingModel`, vectors of `dimensions`) if it is new: each
    /// document's earlier chunks and vectors, when its path was ingested before, are replaced.
    /// A collection made with another model or other dimensions throws
    /// ``ErrorCode/modelIncompatible``, and a document whose vectors do not match its chunks
    /// ``ErrorCode/invalidInput`` (``RAGStoreChecks``); either way, as with any failure, nothing
    /// is changed. Returns each document as stored, and whether it replaced one.
    func write(_ documents: [IngestedDocument], collection: String, embeddingModel: String, dimensions: Int) async throws
        -> [(document: RAGDocument, replaced: Bool)]

    /// The `topK` chunks of the collection `collection` closest to `vector` by cosine
    /// similarity, best first (equal scores in the order they were stored), with their
    /// documents' paths. An unknown collection throws ``ErrorCode/fileNotFound``, and a vector of
    /// other dimensions than the collection's ``ErrorCode/modelIncompatible``.
    func search(_ vector: [Float], collection: String, topK: Int) async throws -> [RAGSource]

    /// The chunk `ordinal` of the document `path` in `collection`; what is not there throws ``ErrorCode/fileNotFound``.
    func passage(document path: String, ordinal: Int, collection: String) async throws -> RAGPassage

    /// Lets go of its connections; a store that holds none does nothing.
    func close() async
}

/// A document ready to store: its text, its chunks and one vector per chunk.
package struct IngestedDocument: Sendable {
    /// The document as read.
    package let document: DocumentText
    /// Its chunks.
    package let chunks: [TextChunk]
    /// One vector per chunk, in order.
    package let vectors: [[Float]]

    /// Creates a document to store.
    package init(document: DocumentText, chunks: [TextChunk], vectors: [[Float]]) {
        self.document = document
        self.chunks = chunks
        self.vectors = vectors
    }
}

/// What a collection's vectors are: its name, the model that made them and their dimensions.
package protocol RAGVectorSpace {
    /// The collection's name.
    var name: String { get }
    /// The embedding model its vectors come from.
    var embeddingModelId: String { get }
    /// How many numbers each vector has.
    var dimensions: Int { get }
}

extension RAGCollection: RAGVectorSpace {}

/// A collection as a store finds it before a write or a search: its row id and its vector space,
/// without the counts that ``RAGStore/collection(named:)`` adds up.
package struct StoredCollection: RAGVectorSpace, Sendable {
    /// Its row id in the store.
    package let id: Int
    package let name: String
    package let embeddingModelId: String
    package let dimensions: Int

    /// A collection found in a store.
    package init(id: Int, name: String, embeddingModelId: String, dimensions: Int) {
        self.id = id
        self.name = name
        self.embeddingModelId = embeddingModelId
        self.dimensions = dimensions
    }
}

/// The rules every ``RAGStore`` keeps, and their errors.
package enum RAGStoreChecks {
    /// The error for a collection `name` that does not exist.
    package static func noCollection(_ name: String) -> SDKError {
        SDKError.fileManagement(.fileNotFound, "There is no RAG collection '\(name)'")
    }

    /// The error for a document `path` that `collection` does not have.
    package static func noDocument(_ path: String, collection: String) -> SDKError {
        SDKError.fileManagement(.fileNotFound, "Collection '\(collection)' has no document \(path)")
    }

    /// The error for a chunk `ordinal` that the document `path` of `total` chunks does not have.
    package static func noChunk(_ ordinal: Int, path: String, total: Int) -> SDKError {
        SDKError.fileManagement(.fileNotFound, "\(path) has no chunk \(ordinal) (it has \(total), numbered from 0)")
    }

    /// Throws ``ErrorCode/modelIncompatible`` unless `collection` was made with `model` and vectors of `dimensions`.
    package static func check(_ collection: some RAGVectorSpace, model: String, dimensions: Int) throws {
        guard collection.embeddingModelId == model else {
            throw SDKError(
                .modelIncompatible,
                "Collection '\(collection.name)' was made with the embedding model '\(collection.embeddingModelId)', not '\(model)': "
                    + "use '\(collection.embeddingModelId)' with it, or another collection for '\(model)'"
            )
        }
        guard collection.dimensions == dimensions else {
            throw SDKError(
                .modelIncompatible,
                "Collection '\(collection.name)' holds vectors of \(collection.dimensions) dimensions, but '\(model)' now makes \(dimensions): "
                    + "ingest its documents into a new collection"
            )
        }
    }

    /// Throws ``ErrorCode/modelIncompatible`` unless a question's `vector` has the dimensions of `collection`'s vectors.
    package static func check(_ vector: [Float], searching collection: some RAGVectorSpace) throws {
        guard collection.dimensions == vector.count else {
            throw SDKError(
                .modelIncompatible,
                "Collection '\(collection.name)' holds vectors of \(collection.dimensions) dimensions; a question's vector of \(vector.count) cannot be compared with them"
            )
        }
    }

    /// Throws ``ErrorCode/invalidInput`` unless `item` has one finite vector of `dimensions` per chunk.
    package static func check(_ item: IngestedDocument, dimensions: Int) throws {
        guard item.vectors.count == item.chunks.count else {
            throw SDKError(.invalidInput, "\(item.document.path) has \(item.chunks.count) chunks but \(item.vectors.count) vectors")
        }
        if let bad = item.vectors.firstIndex(where: { $0.count != dimensions || !$0.allSatisfy(\.isFinite) }) {
            throw SDKError(
                .invalidInput,
                "Chunk \(bad) of \(item.document.path) has a vector of \(item.vectors[bad].count) values, not \(dimensions) finite ones")
        }
    }
}
