import Hummingbird

/// The OpenAPI 3.1 document of the whole API, served at `GET /openapi.json`: every route of
/// ``RunAnywhereServer/router()`` with its parameters, bodies, responses and error shapes (a test
/// checks that the two list the same routes). Kept here, not in a resource bundle, so that the
/// `runanywhere` binary serves it wherever it is copied.
enum OpenAPIDocument {
    static func register(on router: Router<BasicRequestContext>) {
        router.get("openapi.json") { _, _ in bodyResponse(ByteBuffer(string: json), contentType: "application/json") }
    }

    static let json = #"""
{
 "openapi": "3.1.0",
 "info": {
  "title": "RunAnywhere",
  "version": "1",
  "description": "`runanywhere serve`: OpenAI-compatible routes under /v1 and RunAnywhere's own under /api, and ollama's API (/api/chat, /api/generate, /api/embed, /api/embeddings, /api/tags, /api/show, /api/ps, /api/pull, /api/delete, /api/version). Errors are OpenAI's JSON shape (on /v1/messages, Anthropic's; on ollama's routes, ollama's)."
 },
 "servers": [
  {
   "url": "http://127.0.0.1:8080"
  }
 ],
 "security": [
  {
   "bearer": []
  }
 ],
 "tags": [
  {
   "name": "OpenAI",
   "description": "The shapes the official OpenAI clients expect"
  },
  {
   "name": "RunAnywhere",
   "description": "What OpenAI has no word for; the web app uses these"
  },
  {
   "name": "Anthropic",
   "description": "Anthropic's Messages API, in the shapes the official anthropic clients expect"
  },
  {
   "name": "ollama",
   "description": "ollama's API, in the shapes the official ollama clients expect"
  }
 ],
 "paths": {
  "/health": {
   "get": {
    "summary": "Liveness; open even with an API key",
    "security": [],
    "responses": {
     "200": {
      "description": "OK",
      "content": {
       "application/json": {
        "schema": {
         "type": "object",
         "properties": {
          "status": {
           "const": "ok"
          }
         }
        }
       }
      }
     },
     "403": {
      "$ref": "#/components/responses/Forbidden"
     }
    }
   }
  },
  "/metrics": {
   "get": {
    "summary": "Prometheus metrics",
    "responses": {
     "200": {
      "description": "OK",
      "content": {
       "text/plain": {
        "schema": {
         "type": "string"
        }
       }
      }
     },
     "400": {
      "$ref": "#/components/responses/BadRequest"
     },
     "401": {
      "$ref": "#/components/responses/Unauthorized"
     },
     "403": {
      "$ref": "#/components/responses/Forbidden"
     }
    }
   }
  },
  "/openapi.json": {
   "get": {
    "summary": "This document",
    "responses": {
     "200": {
      "description": "OK",
      "content": {
       "application/json": {
        "schema": {
         "type": "object"
        }
       }
      }
     },
     "400": {
      "$ref": "#/components/responses/BadRequest"
     },
     "401": {
      "$ref": "#/components/responses/Unauthorized"
     },
     "403": {
      "$ref": "#/components/responses/Forbidden"
     }
    }
   }
  },
  "/v1/models": {
   "get": {
    "summary": "The installed models the /v1 routes serve: language, vision-language, embedding, reranking, speech and image-generation models",
    "responses": {
     "200": {
      "description": "OK",
      "content": {
       "application/json": {
        "schema": {
         "$ref": "#/components/schemas/ModelList"
        }
       }
      }
     },
     "400": {
      "$ref": "#/components/responses/BadRequest"
     },
     "401": {
      "$ref": "#/components/responses/Unauthorized"
     },
     "403": {
      "$ref": "#/components/responses/Forbidden"
     }
    },
    "tags": [
     "OpenAI"
    ]
   }
  },
  "/v1/models/{id}": {
   "get": {
    "summary": "One installed model the /v1 routes serve",
    "responses": {
     "200": {
      "description": "OK",
      "content": {
       "application/json": {
        "schema": {
         "$ref": "#/components/schemas/Model"
        }
       }
      }
     },
     "400": {
      "$ref": "#/components/responses/BadRequest"
     },
     "401": {
      "$ref": "#/components/responses/Unauthorized"
     },
     "403": {
      "$ref": "#/components/responses/Forbidden"
     },
     "404": {
      "$ref": "#/components/responses/NotFound"
     }
    },
    "parameters": [
     {
      "name": "id",
      "in": "path",
      "required": true,
      "schema": {
       "type": "string"
      },
      "description": "A model id, as `GET /api/models` lists it, percent-encoded (a reference's id, hf.co/OWNER/REPO:QUANT, as hf.co%2FOWNER%2FREPO%3AQUANT)"
     }
    ],
    "tags": [
     "OpenAI"
    ]
   }
  },
  "/v1/chat/completions": {
   "post": {
    "summary": "A chat completion, whole or streamed",
    "responses": {
     "200": {
      "description": "OK",
      "content": {
       "application/json": {
        "schema": {
         "$ref": "#/components/schemas/ChatCompletion"
        }
       },
       "text/event-stream": {
        "schema": {
         "type": "object",
         "description": "With stream: each event's data is a ChatCompletionChunk (the last one with usage when stream_options.include_usage), an Error if the generation fails, then [DONE]",
         "required": [
          "event",
          "data"
         ],
         "properties": {
          "event": {
           "const": "message"
          },
          "data": {
           "type": "string",
           "if": {
            "const": "[DONE]"
           },
           "else": {
            "contentMediaType": "application/json",
            "contentSchema": {
             "oneOf": [
              {
               "$ref": "#/components/schemas/ChatCompletionChunk"
              },
              {
               "$ref": "#/components/schemas/Error"
              }
             ]
            }
           }
          },
          "id": {
           "type": "string"
          },
          "retry": {
           "type": "integer"
          }
         }
        }
       }
      }
     },
     "400": {
      "$ref": "#/components/responses/BadRequest"
     },
     "401": {
      "$ref": "#/components/responses/Unauthorized"
     },
     "403": {
      "$ref": "#/components/responses/Forbidden"
     },
     "404": {
      "$ref": "#/components/responses/NotFound"
     },
     "413": {
      "$ref": "#/components/responses/TooLarge"
     },
     "415": {
      "$ref": "#/components/responses/UnsupportedMediaType"
     },
     "503": {
      "$ref": "#/components/responses/Busy"
     }
    },
    "requestBody": {
     "required": true,
     "content": {
      "application/json": {
       "schema": {
        "$ref": "#/components/schemas/ChatCompletionRequest"
       }
      }
     }
    },
    "tags": [
     "OpenAI"
    ]
   }
  },
  "/v1/completions": {
   "post": {
    "summary": "A text completion of a raw prompt, whole or streamed",
    "responses": {
     "200": {
      "description": "OK",
      "content": {
       "application/json": {
        "schema": {
         "$ref": "#/components/schemas/Completion"
        }
       },
       "text/event-stream": {
        "schema": {
         "type": "object",
         "description": "With stream: each event's data is a text_completion chunk (the last one with usage when stream_options.include_usage), an Error if the generation fails, then [DONE]",
         "required": [
          "event",
          "data"
         ],
         "properties": {
          "event": {
           "const": "message"
          },
          "data": {
           "type": "string",
           "if": {
            "const": "[DONE]"
           },
           "else": {
            "contentMediaType": "application/json",
            "contentSchema": {
             "oneOf": [
              {
               "$ref": "#/components/schemas/Completion"
              },
              {
               "$ref": "#/components/schemas/Error"
              }
             ]
            }
           }
          },
          "id": {
           "type": "string"
          },
          "retry": {
           "type": "integer"
          }
         }
        }
       }
      }
     },
     "400": {
      "$ref": "#/components/responses/BadRequest"
     },
     "401": {
      "$ref": "#/components/responses/Unauthorized"
     },
     "403": {
      "$ref": "#/components/responses/Forbidden"
     },
     "404": {
      "$ref": "#/components/responses/NotFound"
     },
     "413": {
      "$ref": "#/components/responses/TooLarge"
     },
     "415": {
      "$ref": "#/components/responses/UnsupportedMediaType"
     },
     "503": {
      "$ref": "#/components/responses/Busy"
     }
    },
    "requestBody": {
     "required": true,
     "content": {
      "application/json": {
       "schema": {
        "$ref": "#/components/schemas/CompletionRequest"
       }
      }
     }
    },
    "tags": [
     "OpenAI"
    ]
   }
  },
  "/v1/messages": {
   "post": {
    "summary": "Anthropic's Messages API: the assistant's next message, whole or streamed as Anthropic's events",
    "description": "The request maps onto the same generation as chat completions; errors on this route take Anthropic's shape (AnthropicError). The key may come as x-api-key or as a bearer token.",
    "responses": {
     "200": {
      "description": "OK",
      "content": {
       "application/json": {
        "schema": {
         "$ref": "#/components/schemas/AnthropicMessage"
        }
       },
       "text/event-stream": {
        "schema": {
         "type": "object",
         "description": "With stream: message_start, ping, then for each content block content_block_start, content_block_delta events and content_block_stop, then message_delta (stop_reason, usage) and message_stop; an error event (AnthropicError) if the generation fails",
         "required": [
          "event",
          "data"
         ],
         "properties": {
          "event": {
           "enum": [
            "message_start",
            "ping",
            "content_block_start",
            "content_block_delta",
            "content_block_stop",
            "message_delta",
            "message_stop",
            "error"
           ]
          },
          "data": {
           "type": "string",
           "contentMediaType": "application/json",
           "contentSchema": {
            "oneOf": [
             {
              "$ref": "#/components/schemas/AnthropicMessageStartEvent"
             },
             {
              "$ref": "#/components/schemas/AnthropicPingEvent"
             },
             {
              "$ref": "#/components/schemas/AnthropicContentBlockStartEvent"
             },
             {
              "$ref": "#/components/schemas/AnthropicContentBlockDeltaEvent"
             },
             {
              "$ref": "#/components/schemas/AnthropicContentBlockStopEvent"
             },
             {
              "$ref": "#/components/schemas/AnthropicMessageDeltaEvent"
             },
             {
              "$ref": "#/components/schemas/AnthropicMessageStopEvent"
             },
             {
              "$ref": "#/components/schemas/AnthropicError"
             }
            ]
           }
          },
          "id": {
           "type": "string"
          },
          "retry": {
           "type": "integer"
          }
         }
        }
       }
      }
     },
     "400": {
      "$ref": "#/components/responses/AnthropicFailure"
     },
     "401": {
      "$ref": "#/components/responses/AnthropicFailure"
     },
     "403": {
      "$ref": "#/components/responses/AnthropicFailure"
     },
     "404": {
      "$ref": "#/components/responses/AnthropicFailure"
     },
     "413": {
      "$ref": "#/components/responses/AnthropicFailure"
     },
     "415": {
      "$ref": "#/components/responses/AnthropicFailure"
     },
     "500": {
      "$ref": "#/components/responses/AnthropicFailure"
     },
     "503": {
      "$ref": "#/components/responses/AnthropicFailure"
     }
    },
    "requestBody": {
     "required": true,
     "content": {
      "application/json": {
       "schema": {
        "$ref": "#/components/schemas/AnthropicMessagesRequest"
       }
      }
     }
    },
    "security": [
     {
      "bearer": []
     },
     {
      "apiKey": []
     }
    ],
    "tags": [
     "Anthropic"
    ]
   }
  },
  "/v1/messages/count_tokens": {
   "post": {
    "summary": "The tokens of a Messages request's prompt, after the model's chat template (with the tools' instruction), as the answer's usage.input_tokens counts them",
    "responses": {
     "200": {
      "description": "OK",
      "content": {
       "application/json": {
        "schema": {
         "$ref": "#/components/schemas/AnthropicTokenCount"
        }
       }
      }
     },
     "400": {
      "$ref": "#/components/responses/AnthropicFailure"
     },
     "401": {
      "$ref": "#/components/responses/AnthropicFailure"
     },
     "403": {
      "$ref": "#/components/responses/AnthropicFailure"
     },
     "404": {
      "$ref": "#/components/responses/AnthropicFailure"
     },
     "413": {
      "$ref": "#/components/responses/AnthropicFailure"
     },
     "415": {
      "$ref": "#/components/responses/AnthropicFailure"
     },
     "500": {
      "$ref": "#/components/responses/AnthropicFailure"
     },
     "503": {
      "$ref": "#/components/responses/AnthropicFailure"
     }
    },
    "requestBody": {
     "required": true,
     "content": {
      "application/json": {
       "schema": {
        "$ref": "#/components/schemas/AnthropicCountTokensRequest"
       }
      }
     }
    },
    "security": [
     {
      "bearer": []
     },
     {
      "apiKey": []
     }
    ],
    "tags": [
     "Anthropic"
    ]
   }
  },
  "/v1/responses": {
   "post": {
    "summary": "A response (OpenAI's Responses API), whole or streamed as semantic events; stored unless store is false",
    "responses": {
     "200": {
      "description": "OK",
      "content": {
       "application/json": {
        "schema": {
         "$ref": "#/components/schemas/Response"
        }
       },
       "text/event-stream": {
        "schema": {
         "type": "object",
         "description": "With stream: the semantic events, each named by its type (event: response.created …), numbered by sequence_number from 0: response.created, response.in_progress, then per output item output_item.added, its deltas and .done events, output_item.done, and last response.completed, response.incomplete or response.failed (after an error event)",
         "required": [
          "event",
          "data"
         ],
         "properties": {
          "event": {
           "type": "string"
          },
          "data": {
           "type": "string",
           "contentMediaType": "application/json",
           "contentSchema": {
            "$ref": "#/components/schemas/ResponseStreamEvent"
           }
          },
          "id": {
           "type": "string"
          },
          "retry": {
           "type": "integer"
          }
         }
        }
       }
      }
     },
     "400": {
      "$ref": "#/components/responses/BadRequest"
     },
     "401": {
      "$ref": "#/components/responses/Unauthorized"
     },
     "403": {
      "$ref": "#/components/responses/Forbidden"
     },
     "404": {
      "$ref": "#/components/responses/NotFound"
     },
     "413": {
      "$ref": "#/components/responses/TooLarge"
     },
     "415": {
      "$ref": "#/components/responses/UnsupportedMediaType"
     },
     "503": {
      "$ref": "#/components/responses/Busy"
     }
    },
    "requestBody": {
     "required": true,
     "content": {
      "application/json": {
       "schema": {
        "$ref": "#/components/schemas/ResponseRequest"
       }
      }
     }
    },
    "tags": [
     "OpenAI"
    ]
   }
  },
  "/v1/responses/{id}": {
   "get": {
    "summary": "A stored response",
    "parameters": [
     {
      "name": "id",
      "in": "path",
      "required": true,
      "schema": {
       "type": "string"
      },
      "description": "A stored response's id (resp_…)"
     }
    ],
    "responses": {
     "200": {
      "description": "OK",
      "content": {
       "application/json": {
        "schema": {
         "$ref": "#/components/schemas/Response"
        }
       }
      }
     },
     "401": {
      "$ref": "#/components/responses/Unauthorized"
     },
     "403": {
      "$ref": "#/components/responses/Forbidden"
     },
     "404": {
      "$ref": "#/components/responses/NotFound"
     }
    },
    "tags": [
     "OpenAI"
    ]
   },
   "delete": {
    "summary": "Delete a stored response (the later turns that continued it are kept)",
    "parameters": [
     {
      "name": "id",
      "in": "path",
      "required": true,
      "schema": {
       "type": "string"
      },
      "description": "A stored response's id (resp_…)"
     }
    ],
    "responses": {
     "200": {
      "description": "Deleted",
      "content": {
       "application/json": {
        "schema": {
         "$ref": "#/components/schemas/ResponseDeleted"
        }
       }
      }
     },
     "401": {
      "$ref": "#/components/responses/Unauthorized"
     },
     "403": {
      "$ref": "#/components/responses/Forbidden"
     },
     "404": {
      "$ref": "#/components/responses/NotFound"
     }
    },
    "tags": [
     "OpenAI"
    ]
   }
  },
  "/v1/responses/{id}/input_items": {
   "get": {
    "summary": "The items a stored response answered: the earlier turns' items, then its input",
    "parameters": [
     {
      "name": "id",
      "in": "path",
      "required": true,
      "schema": {
       "type": "string"
      },
      "description": "A stored response's id (resp_…)"
     },
     {
      "name": "order",
      "in": "query",
      "required": false,
      "schema": {
       "enum": [
        "asc",
        "desc"
       ]
      },
      "description": "desc (the default): newest first"
     }
    ],
    "responses": {
     "200": {
      "description": "OK",
      "content": {
       "application/json": {
        "schema": {
         "$ref": "#/components/schemas/ResponseInputItemList"
        }
       }
      }
     },
     "400": {
      "$ref": "#/components/responses/BadRequest"
     },
     "401": {
      "$ref": "#/components/responses/Unauthorized"
     },
     "403": {
      "$ref": "#/components/responses/Forbidden"
     },
     "404": {
      "$ref": "#/components/responses/NotFound"
     }
    },
    "tags": [
     "OpenAI"
    ]
   }
  },
  "/v1/audio/speech": {
   "post": {
    "summary": "Speech from text",
    "responses": {
     "200": {
      "description": "OK",
      "content": {
       "audio/wav": {
        "schema": {
         "type": "string",
         "format": "binary"
        }
       },
       "audio/pcm": {
        "schema": {
         "type": "string",
         "format": "binary"
        }
       }
      }
     },
     "400": {
      "$ref": "#/components/responses/BadRequest"
     },
     "401": {
      "$ref": "#/components/responses/Unauthorized"
     },
     "403": {
      "$ref": "#/components/responses/Forbidden"
     },
     "404": {
      "$ref": "#/components/responses/NotFound"
     },
     "413": {
      "$ref": "#/components/responses/TooLarge"
     },
     "415": {
      "$ref": "#/components/responses/UnsupportedMediaType"
     },
     "503": {
      "$ref": "#/components/responses/Busy"
     }
    },
    "requestBody": {
     "required": true,
     "content": {
      "application/json": {
       "schema": {
        "$ref": "#/components/schemas/SpeechRequest"
       }
      }
     }
    },
    "tags": [
     "OpenAI"
    ]
   }
  },
  "/v1/images/generations": {
   "post": {
    "summary": "Images from a text prompt with a local diffusion model (stable-diffusion.cpp), OpenAI's Images API",
    "responses": {
     "200": {
      "description": "OK",
      "content": {
       "application/json": {
        "schema": {
         "$ref": "#/components/schemas/ImagesResponse"
        }
       }
      }
     },
     "400": {
      "$ref": "#/components/responses/BadRequest"
     },
     "401": {
      "$ref": "#/components/responses/Unauthorized"
     },
     "403": {
      "$ref": "#/components/responses/Forbidden"
     },
     "404": {
      "$ref": "#/components/responses/NotFound"
     },
     "413": {
      "$ref": "#/components/responses/TooLarge"
     },
     "415": {
      "$ref": "#/components/responses/UnsupportedMediaType"
     },
     "503": {
      "$ref": "#/components/responses/Busy"
     }
    },
    "requestBody": {
     "required": true,
     "content": {
      "application/json": {
       "schema": {
        "$ref": "#/components/schemas/ImageGenerationRequest"
       }
      }
     }
    },
    "tags": [
     "OpenAI"
    ]
   }
  },
  "/v1/embeddings": {
   "post": {
    "summary": "Embedding vectors of texts with a local embedding model (llama.cpp's BERT support), OpenAI's Embeddings API",
    "description": "One L2-normalized vector per text, in the order given. Token-id arrays as input (OpenAI takes them) are refused with a 400 naming input: ids counted with OpenAI's tokenizer are other words to a local model; langchain-openai's OpenAIEmbeddings sends texts with check_embedding_ctx_length=False. A text longer than the model reads is a 400 (code context_length_exceeded) unless truncate",
    "responses": {
     "200": {
      "description": "OK",
      "content": {
       "application/json": {
        "schema": {
         "$ref": "#/components/schemas/EmbeddingList"
        }
       }
      }
     },
     "400": {
      "$ref": "#/components/responses/BadRequest"
     },
     "401": {
      "$ref": "#/components/responses/Unauthorized"
     },
     "403": {
      "$ref": "#/components/responses/Forbidden"
     },
     "404": {
      "$ref": "#/components/responses/NotFound"
     },
     "413": {
      "$ref": "#/components/responses/TooLarge"
     },
     "415": {
      "$ref": "#/components/responses/UnsupportedMediaType"
     },
     "503": {
      "$ref": "#/components/responses/Busy"
     }
    },
    "requestBody": {
     "required": true,
     "content": {
      "application/json": {
       "schema": {
        "$ref": "#/components/schemas/EmbeddingRequest"
       }
      }
     }
    },
    "tags": [
     "OpenAI"
    ]
   }
  },
  "/v1/rerank": {
   "post": {
    "summary": "Documents ranked by relevance to a query with a local reranker (llama.cpp's rank pooling), in the shape llama.cpp's server and Jina use",
    "description": "The reranker reads the query with each document (as llama.cpp's server pairs them: the model's rerank template, else BOS query EOS SEP document EOS) and scores the pair; results come best first, at most top_n. A pair longer than the model reads is a 400 (code context_length_exceeded, param documents) unless truncate; an empty query or document, no documents or more than 1024, or top_n below 1 is a 400; a model that is not a reranker a 400 (code model_incompatible); no reranker downloaded, or an unknown model, a 404",
    "responses": {
     "200": {
      "description": "OK",
      "content": {
       "application/json": {
        "schema": {
         "$ref": "#/components/schemas/RerankList"
        }
       }
      }
     },
     "400": {
      "$ref": "#/components/responses/BadRequest"
     },
     "401": {
      "$ref": "#/components/responses/Unauthorized"
     },
     "403": {
      "$ref": "#/components/responses/Forbidden"
     },
     "404": {
      "$ref": "#/components/responses/NotFound"
     },
     "413": {
      "$ref": "#/components/responses/TooLarge"
     },
     "415": {
      "$ref": "#/components/responses/UnsupportedMediaType"
     },
     "503": {
      "$ref": "#/components/responses/Busy"
     }
    },
    "requestBody": {
     "required": true,
     "content": {
      "application/json": {
       "schema": {
        "$ref": "#/components/schemas/RerankRequest"
       }
      }
     }
    },
    "tags": [
     "OpenAI"
    ]
   }
  },
  "/rerank": {
   "post": {
    "summary": "The same as POST /v1/rerank (the path llama.cpp's server also answers)",
    "description": "The reranker reads the query with each document (as llama.cpp's server pairs them: the model's rerank template, else BOS query EOS SEP document EOS) and scores the pair; results come best first, at most top_n. A pair longer than the model reads is a 400 (code context_length_exceeded, param documents) unless truncate; an empty query or document, no documents or more than 1024, or top_n below 1 is a 400; a model that is not a reranker a 400 (code model_incompatible); no reranker downloaded, or an unknown model, a 404",
    "responses": {
     "200": {
      "description": "OK",
      "content": {
       "application/json": {
        "schema": {
         "$ref": "#/components/schemas/RerankList"
        }
       }
      }
     },
     "400": {
      "$ref": "#/components/responses/BadRequest"
     },
     "401": {
      "$ref": "#/components/responses/Unauthorized"
     },
     "403": {
      "$ref": "#/components/responses/Forbidden"
     },
     "404": {
      "$ref": "#/components/responses/NotFound"
     },
     "413": {
      "$ref": "#/components/responses/TooLarge"
     },
     "415": {
      "$ref": "#/components/responses/UnsupportedMediaType"
     },
     "503": {
      "$ref": "#/components/responses/Busy"
     }
    },
    "requestBody": {
     "required": true,
     "content": {
      "application/json": {
       "schema": {
        "$ref": "#/components/schemas/RerankRequest"
       }
      }
     }
    },
    "tags": [
     "OpenAI"
    ]
   }
  },
  "/v1/audio/transcriptions": {
   "post": {
    "summary": "Text from an audio file (WAV, MP3, FLAC, Ogg, WebM, M4A…)",
    "responses": {
     "200": {
      "description": "OK",
      "content": {
       "application/json": {
        "schema": {
         "$ref": "#/components/schemas/Transcription"
        }
       },
       "text/plain": {
        "schema": {
         "type": "string"
        }
       },
       "application/x-subrip": {
        "schema": {
         "type": "string"
        }
       },
       "text/vtt": {
        "schema": {
         "type": "string"
        }
       }
      }
     },
     "400": {
      "$ref": "#/components/responses/BadRequest"
     },
     "401": {
      "$ref": "#/components/responses/Unauthorized"
     },
     "403": {
      "$ref": "#/components/responses/Forbidden"
     },
     "404": {
      "$ref": "#/components/responses/NotFound"
     },
     "413": {
      "$ref": "#/components/responses/TooLarge"
     },
     "503": {
      "$ref": "#/components/responses/Busy"
     }
    },
    "requestBody": {
     "required": true,
     "content": {
      "multipart/form-data": {
       "schema": {
        "$ref": "#/components/schemas/TranscriptionForm"
       }
      }
     }
    },
    "tags": [
     "OpenAI"
    ]
   }
  },
  "/tokenize": {
   "post": {
    "summary": "A text's tokens in a language model's vocabulary, in llama-server's shape",
    "responses": {
     "200": {
      "description": "OK: the token ids; with with_pieces, each id with its piece of text (as its bytes when they are not whole UTF-8)",
      "content": {
       "application/json": {
        "schema": {
         "type": "object",
         "required": [
          "tokens"
         ],
         "properties": {
          "tokens": {
           "type": "array",
           "items": {
            "oneOf": [
             {
              "type": "integer"
             },
             {
              "type": "object",
              "required": [
               "id",
               "piece"
              ],
              "properties": {
               "id": {
                "type": "integer"
               },
               "piece": {
                "oneOf": [
                 {
                  "type": "string"
                 },
                 {
                  "type": "array",
                  "items": {
                   "type": "integer",
                   "minimum": 0,
                   "maximum": 255
                  }
                 }
                ]
               }
              }
             }
            ]
           }
          }
         }
        }
       }
      }
     },
     "400": {
      "$ref": "#/components/responses/BadRequest"
     },
     "401": {
      "$ref": "#/components/responses/Unauthorized"
     },
     "403": {
      "$ref": "#/components/responses/Forbidden"
     },
     "404": {
      "$ref": "#/components/responses/NotFound"
     },
     "413": {
      "$ref": "#/components/responses/TooLarge"
     },
     "415": {
      "$ref": "#/components/responses/UnsupportedMediaType"
     },
     "503": {
      "$ref": "#/components/responses/Busy"
     }
    },
    "requestBody": {
     "required": true,
     "content": {
      "application/json": {
       "schema": {
        "type": "object",
        "required": [
         "content"
        ],
        "properties": {
         "content": {
          "type": "string",
          "description": "The text"
         },
         "add_special": {
          "type": "boolean",
          "default": false,
          "description": "Add the tokens the model puts around a text (a beginning-of-text token, for models that want one)"
         },
         "parse_special": {
          "type": "boolean",
          "default": true,
          "description": "Read special-token text such as <|im_start|> as that token, not as plain text"
         },
         "with_pieces": {
          "type": "boolean",
          "default": false,
          "description": "Give each token with its piece of text"
         },
         "model": {
          "type": "string",
          "description": "A language model id, as `GET /api/models` lists it (default: the default model); RunAnywhere's addition, loaded as a generation loads it"
         }
        }
       }
      }
     }
    },
    "tags": [
     "RunAnywhere"
    ]
   }
  },
  "/detokenize": {
   "post": {
    "summary": "The text a language model's tokens stand for, in llama-server's shape",
    "responses": {
     "200": {
      "description": "OK: the tokens' pieces joined, special tokens written out",
      "content": {
       "application/json": {
        "schema": {
         "type": "object",
         "required": [
          "content"
         ],
         "properties": {
          "content": {
           "type": "string"
          }
         }
        }
       }
      }
     },
     "400": {
      "$ref": "#/components/responses/BadRequest"
     },
     "401": {
      "$ref": "#/components/responses/Unauthorized"
     },
     "403": {
      "$ref": "#/components/responses/Forbidden"
     },
     "404": {
      "$ref": "#/components/responses/NotFound"
     },
     "413": {
      "$ref": "#/components/responses/TooLarge"
     },
     "415": {
      "$ref": "#/components/responses/UnsupportedMediaType"
     },
     "503": {
      "$ref": "#/components/responses/Busy"
     }
    },
    "requestBody": {
     "required": true,
     "content": {
      "application/json": {
       "schema": {
        "type": "object",
        "required": [
         "tokens"
        ],
        "properties": {
         "tokens": {
          "type": "array",
          "items": {
           "type": "integer",
           "minimum": 0,
           "maximum": 2147483647
          },
          "description": "Token ids of the model's vocabulary; one outside it is a 400"
         },
         "model": {
          "type": "string",
          "description": "A language model id, as `GET /api/models` lists it (default: the default model); RunAnywhere's addition, loaded as a generation loads it"
         }
        }
       }
      }
     }
    },
    "tags": [
     "RunAnywhere"
    ]
   }
  },
  "/api/models/loaded": {
   "get": {
    "summary": "The language models loaded or loading (ollama's /api/ps lists them in ollama's shape)",
    "responses": {
     "200": {
      "description": "OK",
      "content": {
       "application/json": {
        "schema": {
         "type": "object",
         "properties": {
          "models": {
           "type": "array",
           "items": {
            "$ref": "#/components/schemas/LoadedModel"
           }
          },
          "memoryBudgetBytes": {
           "type": "integer"
          }
         }
        }
       }
      }
     },
     "400": {
      "$ref": "#/components/responses/BadRequest"
     },
     "401": {
      "$ref": "#/components/responses/Unauthorized"
     },
     "403": {
      "$ref": "#/components/responses/Forbidden"
     }
    },
    "tags": [
     "RunAnywhere"
    ]
   }
  },
  "/api/system": {
   "get": {
    "summary": "The device, its hardware, each framework's availability and each kind of work's frameworks (or why none)",
    "responses": {
     "200": {
      "description": "OK",
      "content": {
       "application/json": {
        "schema": {
         "$ref": "#/components/schemas/SystemInfo"
        }
       }
      }
     },
     "400": {
      "$ref": "#/components/responses/BadRequest"
     },
     "401": {
      "$ref": "#/components/responses/Unauthorized"
     },
     "403": {
      "$ref": "#/components/responses/Forbidden"
     }
    },
    "tags": [
     "RunAnywhere"
    ]
   }
  },
  "/api/models": {
   "get": {
    "summary": "The model catalog with install state",
    "responses": {
     "200": {
      "description": "OK",
      "content": {
       "application/json": {
        "schema": {
         "type": "object",
         "properties": {
          "models": {
           "type": "array",
           "items": {
            "$ref": "#/components/schemas/CatalogEntry"
           }
          }
         }
        }
       }
      }
     },
     "400": {
      "$ref": "#/components/responses/BadRequest"
     },
     "401": {
      "$ref": "#/components/responses/Unauthorized"
     },
     "403": {
      "$ref": "#/components/responses/Forbidden"
     }
    },
    "parameters": [
     {
      "name": "category",
      "in": "query",
      "required": false,
      "schema": {
       "$ref": "#/components/schemas/ModelCategory"
      }
     }
    ],
    "tags": [
     "RunAnywhere"
    ]
   },
   "post": {
    "summary": "Add a model from a URL or a Hugging Face reference (checked before anything is downloaded)",
    "responses": {
     "201": {
      "description": "Added",
      "content": {
       "application/json": {
        "schema": {
         "$ref": "#/components/schemas/CatalogEntry"
        }
       }
      }
     },
     "400": {
      "$ref": "#/components/responses/BadRequest"
     },
     "401": {
      "$ref": "#/components/responses/Unauthorized"
     },
     "403": {
      "$ref": "#/components/responses/Forbidden"
     },
     "409": {
      "$ref": "#/components/responses/Conflict"
     },
     "413": {
      "$ref": "#/components/responses/TooLarge"
     },
     "415": {
      "$ref": "#/components/responses/UnsupportedMediaType"
     }
    },
    "requestBody": {
     "required": true,
     "content": {
      "application/json": {
       "schema": {
        "$ref": "#/components/schemas/AddModelRequest"
       }
      }
     }
    },
    "tags": [
     "RunAnywhere"
    ]
   }
  },
  "/api/models/check": {
   "post": {
    "summary": "Check a model to add from a URL without adding it: the detected format, the framework and every problem by field",
    "responses": {
     "200": {
      "description": "OK",
      "content": {
       "application/json": {
        "schema": {
         "$ref": "#/components/schemas/ModelSourceCheck"
        }
       }
      }
     },
     "400": {
      "$ref": "#/components/responses/BadRequest"
     },
     "401": {
      "$ref": "#/components/responses/Unauthorized"
     },
     "403": {
      "$ref": "#/components/responses/Forbidden"
     },
     "413": {
      "$ref": "#/components/responses/TooLarge"
     },
     "415": {
      "$ref": "#/components/responses/UnsupportedMediaType"
     }
    },
    "requestBody": {
     "required": true,
     "content": {
      "application/json": {
       "schema": {
        "$ref": "#/components/schemas/AddModelRequest"
       }
      }
     }
    },
    "tags": [
     "RunAnywhere"
    ]
   }
  },
  "/api/models/{id}": {
   "get": {
    "summary": "One model of the catalog",
    "responses": {
     "200": {
      "description": "OK",
      "content": {
       "application/json": {
        "schema": {
         "$ref": "#/components/schemas/CatalogEntry"
        }
       }
      }
     },
     "400": {
      "$ref": "#/components/responses/BadRequest"
     },
     "401": {
      "$ref": "#/components/responses/Unauthorized"
     },
     "403": {
      "$ref": "#/components/responses/Forbidden"
     },
     "404": {
      "$ref": "#/components/responses/NotFound"
     }
    },
    "parameters": [
     {
      "name": "id",
      "in": "path",
      "required": true,
      "schema": {
       "type": "string"
      },
      "description": "A model id, as `GET /api/models` lists it, percent-encoded (a reference's id, hf.co/OWNER/REPO:QUANT, as hf.co%2FOWNER%2FREPO%3AQUANT)"
     }
    ],
    "tags": [
     "RunAnywhere"
    ]
   },
   "delete": {
    "summary": "Delete a model's files (and a user-added model's entry)",
    "parameters": [
     {
      "name": "id",
      "in": "path",
      "required": true,
      "schema": {
       "type": "string"
      },
      "description": "A model id, as `GET /api/models` lists it, percent-encoded (a reference's id, hf.co/OWNER/REPO:QUANT, as hf.co%2FOWNER%2FREPO%3AQUANT)"
     }
    ],
    "tags": [
     "RunAnywhere"
    ],
    "responses": {
     "204": {
      "description": "Deleted"
     },
     "400": {
      "$ref": "#/components/responses/BadRequest"
     },
     "401": {
      "$ref": "#/components/responses/Unauthorized"
     },
     "403": {
      "$ref": "#/components/responses/Forbidden"
     },
     "404": {
      "$ref": "#/components/responses/NotFound"
     }
    }
   }
  },
  "/api/models/{id}/pull": {
   "post": {
    "summary": "Download a model (a Hugging Face reference not registered yet is registered first): `progress` events (PullProgress), then `done` (CatalogEntry), `cancelled` or `error` (Error)",
    "responses": {
     "200": {
      "description": "OK",
      "content": {
       "text/event-stream": {
        "schema": {
         "type": "object",
         "description": "`progress` events, then `done` with the catalog entry, `cancelled` or `error`",
         "required": [
          "event",
          "data"
         ],
         "properties": {
          "event": {
           "enum": [
            "progress",
            "done",
            "cancelled",
            "error"
           ]
          },
          "data": {
           "type": "string"
          },
          "id": {
           "type": "string"
          },
          "retry": {
           "type": "integer"
          }
         },
         "allOf": [
          {
           "if": {
            "properties": {
             "event": {
              "const": "progress"
             }
            }
           },
           "then": {
            "properties": {
             "data": {
              "contentMediaType": "application/json",
              "contentSchema": {
               "$ref": "#/components/schemas/PullProgress"
              }
             }
            }
           }
          },
          {
           "if": {
            "properties": {
             "event": {
              "const": "done"
             }
            }
           },
           "then": {
            "properties": {
             "data": {
              "contentMediaType": "application/json",
              "contentSchema": {
               "$ref": "#/components/schemas/CatalogEntry"
              }
             }
            }
           }
          },
          {
           "if": {
            "properties": {
             "event": {
              "const": "cancelled"
             }
            }
           },
           "then": {
            "properties": {
             "data": {
              "contentMediaType": "application/json",
              "contentSchema": {
               "type": "object",
               "required": [
                "modelId"
               ],
               "properties": {
                "modelId": {
                 "type": "string"
                }
               }
              }
             }
            }
           }
          },
          {
           "if": {
            "properties": {
             "event": {
              "const": "error"
             }
            }
           },
           "then": {
            "properties": {
             "data": {
              "contentMediaType": "application/json",
              "contentSchema": {
               "$ref": "#/components/schemas/Error"
              }
             }
            }
           }
          }
         ]
        }
       }
      }
     },
     "400": {
      "$ref": "#/components/responses/BadRequest"
     },
     "401": {
      "$ref": "#/components/responses/Unauthorized"
     },
     "403": {
      "$ref": "#/components/responses/Forbidden"
     },
     "404": {
      "$ref": "#/components/responses/NotFound"
     }
    },
    "parameters": [
     {
      "name": "id",
      "in": "path",
      "required": true,
      "schema": {
       "type": "string"
      },
      "description": "A model id, as `GET /api/models` lists it, percent-encoded (a reference's id, hf.co/OWNER/REPO:QUANT, as hf.co%2FOWNER%2FREPO%3AQUANT)"
     }
    ],
    "tags": [
     "RunAnywhere"
    ]
   },
   "delete": {
    "summary": "Stop a download; answers once it has stopped (its partial file kept for a resume)",
    "responses": {
     "204": {
      "description": "Stopped"
     },
     "401": {
      "$ref": "#/components/responses/Unauthorized"
     },
     "403": {
      "$ref": "#/components/responses/Forbidden"
     },
     "404": {
      "$ref": "#/components/responses/NotFound"
     }
    },
    "parameters": [
     {
      "name": "id",
      "in": "path",
      "required": true,
      "schema": {
       "type": "string"
      },
      "description": "A model id, as `GET /api/models` lists it, percent-encoded (a reference's id, hf.co/OWNER/REPO:QUANT, as hf.co%2FOWNER%2FREPO%3AQUANT)"
     }
    ],
    "tags": [
     "RunAnywhere"
    ]
   }
  },
  "/api/models/{id}/gguf": {
   "get": {
    "summary": "A downloaded GGUF model's metadata",
    "responses": {
     "200": {
      "description": "OK",
      "content": {
       "application/json": {
        "schema": {
         "$ref": "#/components/schemas/GGUFMetadata"
        }
       }
      }
     },
     "400": {
      "$ref": "#/components/responses/BadRequest"
     },
     "401": {
      "$ref": "#/components/responses/Unauthorized"
     },
     "403": {
      "$ref": "#/components/responses/Forbidden"
     },
     "404": {
      "$ref": "#/components/responses/NotFound"
     }
    },
    "tags": [
     "RunAnywhere"
    ],
    "parameters": [
     {
      "name": "id",
      "in": "path",
      "required": true,
      "schema": {
       "type": "string"
      },
      "description": "A model id, as `GET /api/models` lists it, percent-encoded (a reference's id, hf.co/OWNER/REPO:QUANT, as hf.co%2FOWNER%2FREPO%3AQUANT)"
     }
    ]
   }
  },
  "/api/models/{id}/load": {
   "post": {
    "summary": "Load a language model so that the next request starts at once (like ollama's empty generate request); its status",
    "responses": {
     "200": {
      "description": "Loaded",
      "content": {
       "application/json": {
        "schema": {
         "$ref": "#/components/schemas/LoadedModel"
        }
       }
      }
     },
     "400": {
      "$ref": "#/components/responses/BadRequest"
     },
     "401": {
      "$ref": "#/components/responses/Unauthorized"
     },
     "403": {
      "$ref": "#/components/responses/Forbidden"
     },
     "404": {
      "$ref": "#/components/responses/NotFound"
     },
     "413": {
      "$ref": "#/components/responses/TooLarge"
     },
     "415": {
      "$ref": "#/components/responses/UnsupportedMediaType"
     },
     "503": {
      "$ref": "#/components/responses/Busy"
     }
    },
    "requestBody": {
     "required": false,
     "content": {
      "application/json": {
       "schema": {
        "type": "object",
        "properties": {
         "keep_alive": {
          "$ref": "#/components/schemas/KeepAlive"
         },
         "gpu_layers": {
          "type": "integer",
          "minimum": 0,
          "maximum": 9223372036854775807,
          "description": "Layers to place on a GPU (0: the CPU; default: as many as fit); a model already loaded keeps where it runs"
         }
        }
       }
      }
     },
     "description": "Optional: an empty body, without a Content-Type, takes the defaults"
    },
    "parameters": [
     {
      "name": "id",
      "in": "path",
      "required": true,
      "schema": {
       "type": "string"
      },
      "description": "A model id, as `GET /api/models` lists it, percent-encoded (a reference's id, hf.co/OWNER/REPO:QUANT, as hf.co%2FOWNER%2FREPO%3AQUANT)"
     }
    ],
    "tags": [
     "RunAnywhere"
    ]
   },
   "delete": {
    "summary": "Unload a language model once its requests end",
    "responses": {
     "204": {
      "description": "Unloaded"
     },
     "400": {
      "$ref": "#/components/responses/BadRequest"
     },
     "401": {
      "$ref": "#/components/responses/Unauthorized"
     },
     "403": {
      "$ref": "#/components/responses/Forbidden"
     },
     "404": {
      "$ref": "#/components/responses/NotFound"
     }
    },
    "parameters": [
     {
      "name": "id",
      "in": "path",
      "required": true,
      "schema": {
       "type": "string"
      },
      "description": "A model id, as `GET /api/models` lists it, percent-encoded (a reference's id, hf.co/OWNER/REPO:QUANT, as hf.co%2FOWNER%2FREPO%3AQUANT)"
     }
    ],
    "tags": [
     "RunAnywhere"
    ]
   }
  },
  "/api/storage": {
   "get": {
    "summary": "Disk use of the models folder",
    "responses": {
     "200": {
      "description": "OK",
      "content": {
       "application/json": {
        "schema": {
         "$ref": "#/components/schemas/StorageInfo"
        }
       }
      }
     },
     "400": {
      "$ref": "#/components/responses/BadRequest"
     },
     "401": {
      "$ref": "#/components/responses/Unauthorized"
     },
     "403": {
      "$ref": "#/components/responses/Forbidden"
     }
    },
    "tags": [
     "RunAnywhere"
    ]
   }
  },
  "/api/settings": {
   "get": {
    "summary": "The generation defaults",
    "responses": {
     "200": {
      "description": "OK",
      "content": {
       "application/json": {
        "schema": {
         "$ref": "#/components/schemas/GenerationSettings"
        }
       }
      }
     },
     "400": {
      "$ref": "#/components/responses/BadRequest"
     },
     "401": {
      "$ref": "#/components/responses/Unauthorized"
     },
     "403": {
      "$ref": "#/components/responses/Forbidden"
     }
    },
    "tags": [
     "RunAnywhere"
    ]
   },
   "patch": {
    "summary": "Change some settings (null clears systemPrompt and threads)",
    "responses": {
     "200": {
      "description": "OK",
      "content": {
       "application/json": {
        "schema": {
         "$ref": "#/components/schemas/GenerationSettings"
        }
       }
      }
     },
     "400": {
      "$ref": "#/components/responses/BadRequest"
     },
     "401": {
      "$ref": "#/components/responses/Unauthorized"
     },
     "403": {
      "$ref": "#/components/responses/Forbidden"
     },
     "413": {
      "$ref": "#/components/responses/TooLarge"
     },
     "415": {
      "$ref": "#/components/responses/UnsupportedMediaType"
     }
    },
    "requestBody": {
     "required": true,
     "content": {
      "application/json": {
       "schema": {
        "$ref": "#/components/schemas/SettingsChange"
       }
      }
     }
    },
    "tags": [
     "RunAnywhere"
    ]
   },
   "delete": {
    "summary": "Restore the defaults",
    "responses": {
     "200": {
      "description": "OK",
      "content": {
       "application/json": {
        "schema": {
         "$ref": "#/components/schemas/GenerationSettings"
        }
       }
      }
     },
     "400": {
      "$ref": "#/components/responses/BadRequest"
     },
     "401": {
      "$ref": "#/components/responses/Unauthorized"
     },
     "403": {
      "$ref": "#/components/responses/Forbidden"
     }
    },
    "tags": [
     "RunAnywhere"
    ]
   }
  },
  "/api/conversations": {
   "get": {
    "summary": "Conversations, most recently updated first",
    "responses": {
     "200": {
      "description": "OK",
      "content": {
       "application/json": {
        "schema": {
         "type": "object",
         "properties": {
          "conversations": {
           "type": "array",
           "items": {
            "$ref": "#/components/schemas/ConversationSummary"
           }
          }
         }
        }
       }
      }
     },
     "400": {
      "$ref": "#/components/responses/BadRequest"
     },
     "401": {
      "$ref": "#/components/responses/Unauthorized"
     },
     "403": {
      "$ref": "#/components/responses/Forbidden"
     }
    },
    "parameters": [
     {
      "name": "q",
      "in": "query",
      "required": false,
      "schema": {
       "type": "string"
      },
      "description": "Only those whose title or messages contain this"
     }
    ],
    "tags": [
     "RunAnywhere"
    ]
   },
   "post": {
    "summary": "A new conversation",
    "responses": {
     "201": {
      "description": "Created",
      "content": {
       "application/json": {
        "schema": {
         "$ref": "#/components/schemas/Conversation"
        }
       }
      }
     },
     "400": {
      "$ref": "#/components/responses/BadRequest"
     },
     "401": {
      "$ref": "#/components/responses/Unauthorized"
     },
     "403": {
      "$ref": "#/components/responses/Forbidden"
     },
     "413": {
      "$ref": "#/components/responses/TooLarge"
     },
     "415": {
      "$ref": "#/components/responses/UnsupportedMediaType"
     }
    },
    "requestBody": {
     "required": true,
     "content": {
      "application/json": {
       "schema": {
        "$ref": "#/components/schemas/Title"
       }
      }
     }
    },
    "tags": [
     "RunAnywhere"
    ]
   }
  },
  "/api/conversations/{id}": {
   "get": {
    "summary": "A conversation with its messages and analytics",
    "responses": {
     "200": {
      "description": "OK",
      "content": {
       "application/json": {
        "schema": {
         "$ref": "#/components/schemas/Conversation"
        }
       }
      }
     },
     "400": {
      "$ref": "#/components/responses/BadRequest"
     },
     "401": {
      "$ref": "#/components/responses/Unauthorized"
     },
     "403": {
      "$ref": "#/components/responses/Forbidden"
     },
     "404": {
      "$ref": "#/components/responses/NotFound"
     }
    },
    "parameters": [
     {
      "name": "id",
      "in": "path",
      "required": true,
      "schema": {
       "type": "string"
      },
      "description": "A conversation id"
     }
    ],
    "tags": [
     "RunAnywhere"
    ]
   },
   "patch": {
    "summary": "Rename",
    "responses": {
     "200": {
      "description": "OK",
      "content": {
       "application/json": {
        "schema": {
         "$ref": "#/components/schemas/Conversation"
        }
       }
      }
     },
     "400": {
      "$ref": "#/components/responses/BadRequest"
     },
     "401": {
      "$ref": "#/components/responses/Unauthorized"
     },
     "403": {
      "$ref": "#/components/responses/Forbidden"
     },
     "404": {
      "$ref": "#/components/responses/NotFound"
     },
     "413": {
      "$ref": "#/components/responses/TooLarge"
     },
     "415": {
      "$ref": "#/components/responses/UnsupportedMediaType"
     }
    },
    "requestBody": {
     "required": true,
     "content": {
      "application/json": {
       "schema": {
        "$ref": "#/components/schemas/TitleChange"
       }
      }
     }
    },
    "parameters": [
     {
      "name": "id",
      "in": "path",
      "required": true,
      "schema": {
       "type": "string"
      },
      "description": "A conversation id"
     }
    ],
    "tags": [
     "RunAnywhere"
    ]
   },
   "delete": {
    "summary": "Delete",
    "parameters": [
     {
      "name": "id",
      "in": "path",
      "required": true,
      "schema": {
       "type": "string"
      },
      "description": "A conversation id"
     }
    ],
    "tags": [
     "RunAnywhere"
    ],
    "responses": {
     "204": {
      "description": "Deleted"
     },
     "400": {
      "$ref": "#/components/responses/BadRequest"
     },
     "401": {
      "$ref": "#/components/responses/Unauthorized"
     },
     "403": {
      "$ref": "#/components/responses/Forbidden"
     },
     "404": {
      "$ref": "#/components/responses/NotFound"
     }
    }
   }
  },
  "/api/conversations/{id}/messages": {
   "post": {
    "summary": "Send a message; the answer streams",
    "responses": {
     "200": {
      "description": "OK",
      "content": {
       "text/event-stream": {
        "schema": {
         "type": "object",
         "description": "`delta` events (the answer's text, or a thinking model's reasoning), then `message` with the saved assistant message, after `error` when it failed",
         "required": [
          "event",
          "data"
         ],
         "properties": {
          "event": {
           "enum": [
            "delta",
            "message",
            "error"
           ]
          },
          "data": {
           "type": "string"
          },
          "id": {
           "type": "string"
          },
          "retry": {
           "type": "integer"
          }
         },
         "allOf": [
          {
           "if": {
            "properties": {
             "event": {
              "const": "delta"
             }
            }
           },
           "then": {
            "properties": {
             "data": {
              "contentMediaType": "application/json",
              "contentSchema": {
               "type": "object",
               "properties": {
                "content": {
                 "type": "string"
                },
                "reasoning": {
                 "type": "string"
                }
               },
               "minProperties": 1,
               "maxProperties": 1
              }
             }
            }
           }
          },
          {
           "if": {
            "properties": {
             "event": {
              "const": "message"
             }
            }
           },
           "then": {
            "properties": {
             "data": {
              "contentMediaType": "application/json",
              "contentSchema": {
               "$ref": "#/components/schemas/ChatMessage"
              }
             }
            }
           }
          },
          {
           "if": {
            "properties": {
             "event": {
              "const": "error"
             }
            }
           },
           "then": {
            "properties": {
             "data": {
              "contentMediaType": "application/json",
              "contentSchema": {
               "$ref": "#/components/schemas/Error"
              }
             }
            }
           }
          }
         ]
        }
       }
      }
     },
     "400": {
      "$ref": "#/components/responses/BadRequest"
     },
     "401": {
      "$ref": "#/components/responses/Unauthorized"
     },
     "403": {
      "$ref": "#/components/responses/Forbidden"
     },
     "404": {
      "$ref": "#/components/responses/NotFound"
     },
     "409": {
      "$ref": "#/components/responses/Conflict"
     },
     "413": {
      "$ref": "#/components/responses/TooLarge"
     },
     "415": {
      "$ref": "#/components/responses/UnsupportedMediaType"
     },
     "503": {
      "$ref": "#/components/responses/Busy"
     }
    },
    "requestBody": {
     "required": true,
     "content": {
      "application/json": {
       "schema": {
        "$ref": "#/components/schemas/MessageRequest"
       }
      }
     }
    },
    "parameters": [
     {
      "name": "id",
      "in": "path",
      "required": true,
      "schema": {
       "type": "string"
      },
      "description": "A conversation id"
     }
    ],
    "tags": [
     "RunAnywhere"
    ]
   }
  },
  "/api/conversations/{id}/export": {
   "get": {
    "summary": "A conversation as a file to keep: Markdown (its messages with each answer's footer) or JSON",
    "responses": {
     "200": {
      "description": "OK",
      "content": {
       "text/markdown": {
        "schema": {
         "type": "string"
        }
       },
       "application/json": {
        "schema": {
         "$ref": "#/components/schemas/Conversation"
        }
       }
      }
     },
     "400": {
      "$ref": "#/components/responses/BadRequest"
     },
     "401": {
      "$ref": "#/components/responses/Unauthorized"
     },
     "403": {
      "$ref": "#/components/responses/Forbidden"
     },
     "404": {
      "$ref": "#/components/responses/NotFound"
     }
    },
    "parameters": [
     {
      "name": "id",
      "in": "path",
      "required": true,
      "schema": {
       "type": "string"
      },
      "description": "A conversation id"
     },
     {
      "name": "format",
      "in": "query",
      "required": false,
      "schema": {
       "enum": [
        "md",
        "json"
       ]
      }
     }
    ],
    "tags": [
     "RunAnywhere"
    ]
   }
  },
  "/api/conversations/{id}/answer": {
   "delete": {
    "summary": "Stop the answer being streamed; its stream ends with the saved, interrupted message",
    "responses": {
     "204": {
      "description": "Stopped"
     },
     "401": {
      "$ref": "#/components/responses/Unauthorized"
     },
     "403": {
      "$ref": "#/components/responses/Forbidden"
     },
     "404": {
      "$ref": "#/components/responses/NotFound"
     }
    },
    "parameters": [
     {
      "name": "id",
      "in": "path",
      "required": true,
      "schema": {
       "type": "string"
      },
      "description": "A conversation id"
     }
    ],
    "tags": [
     "RunAnywhere"
    ]
   }
  },
  "/api/conversations/{id}/retry": {
   "post": {
    "summary": "Answer the last message again, replacing the last answer",
    "responses": {
     "200": {
      "description": "OK",
      "content": {
       "text/event-stream": {
        "schema": {
         "type": "object",
         "description": "`delta` events (the answer's text, or a thinking model's reasoning), then `message` with the saved assistant message, after `error` when it failed",
         "required": [
          "event",
          "data"
         ],
         "properties": {
          "event": {
           "enum": [
            "delta",
            "message",
            "error"
           ]
          },
          "data": {
           "type": "string"
          },
          "id": {
           "type": "string"
          },
          "retry": {
           "type": "integer"
          }
         },
         "allOf": [
          {
           "if": {
            "properties": {
             "event": {
              "const": "delta"
             }
            }
           },
           "then": {
            "properties": {
             "data": {
              "contentMediaType": "application/json",
              "contentSchema": {
               "type": "object",
               "properties": {
                "content": {
                 "type": "string"
                },
                "reasoning": {
                 "type": "string"
                }
               },
               "minProperties": 1,
               "maxProperties": 1
              }
             }
            }
           }
          },
          {
           "if": {
            "properties": {
             "event": {
              "const": "message"
             }
            }
           },
           "then": {
            "properties": {
             "data": {
              "contentMediaType": "application/json",
              "contentSchema": {
               "$ref": "#/components/schemas/ChatMessage"
              }
             }
            }
           }
          },
          {
           "if": {
            "properties": {
             "event": {
              "const": "error"
             }
            }
           },
           "then": {
            "properties": {
             "data": {
              "contentMediaType": "application/json",
              "contentSchema": {
               "$ref": "#/components/schemas/Error"
              }
             }
            }
           }
          }
         ]
        }
       }
      }
     },
     "400": {
      "$ref": "#/components/responses/BadRequest"
     },
     "401": {
      "$ref": "#/components/responses/Unauthorized"
     },
     "403": {
      "$ref": "#/components/responses/Forbidden"
     },
     "404": {
      "$ref": "#/components/responses/NotFound"
     },
     "409": {
      "$ref": "#/components/responses/Conflict"
     },
     "413": {
      "$ref": "#/components/responses/TooLarge"
     },
     "415": {
      "$ref": "#/components/responses/UnsupportedMediaType"
     },
     "503": {
      "$ref": "#/components/responses/Busy"
     }
    },
    "requestBody": {
     "required": true,
     "content": {
      "application/json": {
       "schema": {
        "$ref": "#/components/schemas/AnswerRequest"
       }
      }
     }
    },
    "parameters": [
     {
      "name": "id",
      "in": "path",
      "required": true,
      "schema": {
       "type": "string"
      },
      "description": "A conversation id"
     }
    ],
    "tags": [
     "RunAnywhere"
    ]
   }
  },
  "/api/benchmarks": {
   "get": {
    "summary": "The saved benchmark runs, newest first",
    "responses": {
     "200": {
      "description": "OK",
      "content": {
       "application/json": {
        "schema": {
         "type": "object",
         "properties": {
          "runs": {
           "type": "array",
           "items": {
            "$ref": "#/components/schemas/BenchmarkRun"
           }
          },
          "running": {
           "type": "boolean"
          },
          "categories": {
           "type": "array",
           "description": "Each category with the downloaded models a run would benchmark (none: it is skipped)",
           "items": {
            "type": "object",
            "required": [
             "category",
             "displayName",
             "models"
            ],
            "properties": {
             "category": {
              "enum": [
               "llm",
               "stt",
               "tts",
               "vlm",
               "diffusion",
               "embedding"
              ]
             },
             "displayName": {
              "type": "string"
             },
             "models": {
              "type": "array",
              "items": {
               "type": "string"
              }
             }
            }
           }
          }
         }
        }
       }
      }
     },
     "400": {
      "$ref": "#/components/responses/BadRequest"
     },
     "401": {
      "$ref": "#/components/responses/Unauthorized"
     },
     "403": {
      "$ref": "#/components/responses/Forbidden"
     }
    },
    "tags": [
     "RunAnywhere"
    ]
   },
   "post": {
    "summary": "Start a run on every installed model of the categories",
    "responses": {
     "202": {
      "description": "Started",
      "content": {
       "application/json": {
        "schema": {
         "type": "object",
         "properties": {
          "status": {
           "const": "running"
          }
         }
        }
       }
      }
     },
     "400": {
      "$ref": "#/components/responses/BadRequest"
     },
     "401": {
      "$ref": "#/components/responses/Unauthorized"
     },
     "403": {
      "$ref": "#/components/responses/Forbidden"
     },
     "409": {
      "$ref": "#/components/responses/Conflict"
     },
     "413": {
      "$ref": "#/components/responses/TooLarge"
     },
     "415": {
      "$ref": "#/components/responses/UnsupportedMediaType"
     }
    },
    "requestBody": {
     "required": true,
     "content": {
      "application/json": {
       "schema": {
        "$ref": "#/components/schemas/BenchmarkStart"
       }
      }
     }
    },
    "tags": [
     "RunAnywhere"
    ]
   },
   "delete": {
    "summary": "Delete every saved run",
    "tags": [
     "RunAnywhere"
    ],
    "responses": {
     "204": {
      "description": "Deleted"
     },
     "400": {
      "$ref": "#/components/responses/BadRequest"
     },
     "401": {
      "$ref": "#/components/responses/Unauthorized"
     },
     "403": {
      "$ref": "#/components/responses/Forbidden"
     },
     "409": {
      "$ref": "#/components/responses/Conflict"
     }
    }
   }
  },
  "/api/benchmarks/current": {
   "get": {
    "summary": "The last run's events from its start: `skipped`, `progress`, `result`, then `done` (BenchmarkRun)",
    "responses": {
     "200": {
      "description": "OK",
      "content": {
       "text/event-stream": {
        "schema": {
         "type": "object",
         "description": "The last run's events from its start: `skipped` (a category without models), `progress`, `result` (a BenchmarkResult), then `done` with the saved run",
         "required": [
          "event",
          "data"
         ],
         "properties": {
          "event": {
           "enum": [
            "skipped",
            "progress",
            "result",
            "done"
           ]
          },
          "data": {
           "type": "string"
          },
          "id": {
           "type": "string"
          },
          "retry": {
           "type": "integer"
          }
         },
         "allOf": [
          {
           "if": {
            "properties": {
             "event": {
              "const": "skipped"
             }
            }
           },
           "then": {
            "properties": {
             "data": {
              "contentMediaType": "application/json",
              "contentSchema": {
               "type": "object",
               "required": [
                "category",
                "reason"
               ],
               "properties": {
                "category": {
                 "$ref": "#/components/schemas/BenchmarkCategory"
                },
                "reason": {
                 "type": "string"
                }
               }
              }
             }
            }
           }
          },
          {
           "if": {
            "properties": {
             "event": {
              "const": "progress"
             }
            }
           },
           "then": {
            "properties": {
             "data": {
              "contentMediaType": "application/json",
              "contentSchema": {
               "type": "object",
               "required": [
                "currentScenario",
                "progress",
                "completedCount",
                "totalCount"
               ],
               "properties": {
                "currentScenario": {
                 "type": "string"
                },
                "progress": {
                 "type": "number",
                 "minimum": 0,
                 "maximum": 1
                },
                "completedCount": {
                 "type": "integer"
                },
                "totalCount": {
                 "type": "integer"
                }
               }
              }
             }
            }
           }
          },
          {
           "if": {
            "properties": {
             "event": {
              "const": "result"
             }
            }
           },
           "then": {
            "properties": {
             "data": {
              "contentMediaType": "application/json",
              "contentSchema": {
               "type": "object",
               "description": "The benchmark specification's BenchmarkResult: a scenario's metrics on one model"
              }
             }
            }
           }
          },
          {
           "if": {
            "properties": {
             "event": {
              "const": "done"
             }
            }
           },
           "then": {
            "properties": {
             "data": {
              "contentMediaType": "application/json",
              "contentSchema": {
               "$ref": "#/components/schemas/BenchmarkRun"
              }
             }
            }
           }
          }
         ]
        }
       }
      }
     },
     "400": {
      "$ref": "#/components/responses/BadRequest"
     },
     "401": {
      "$ref": "#/components/responses/Unauthorized"
     },
     "403": {
      "$ref": "#/components/responses/Forbidden"
     },
     "404": {
      "$ref": "#/components/responses/NotFound"
     }
    },
    "tags": [
     "RunAnywhere"
    ]
   },
   "delete": {
    "summary": "Stop the running run (saved as cancelled)",
    "tags": [
     "RunAnywhere"
    ],
    "responses": {
     "202": {
      "description": "Stopping"
     },
     "400": {
      "$ref": "#/components/responses/BadRequest"
     },
     "401": {
      "$ref": "#/components/responses/Unauthorized"
     },
     "403": {
      "$ref": "#/components/responses/Forbidden"
     },
     "404": {
      "$ref": "#/components/responses/NotFound"
     }
    }
   }
  },
  "/api/benchmarks/{id}": {
   "get": {
    "summary": "A saved run",
    "responses": {
     "200": {
      "description": "OK",
      "content": {
       "application/json": {
        "schema": {
         "$ref": "#/components/schemas/BenchmarkRun"
        }
       }
      }
     },
     "400": {
      "$ref": "#/components/responses/BadRequest"
     },
     "401": {
      "$ref": "#/components/responses/Unauthorized"
     },
     "403": {
      "$ref": "#/components/responses/Forbidden"
     },
     "404": {
      "$ref": "#/components/responses/NotFound"
     }
    },
    "parameters": [
     {
      "name": "id",
      "in": "path",
      "required": true,
      "schema": {
       "type": "string"
      }
     }
    ],
    "tags": [
     "RunAnywhere"
    ]
   }
  },
  "/api/benchmarks/{id}/export": {
   "get": {
    "summary": "A saved run as a file to share",
    "responses": {
     "200": {
      "description": "OK",
      "content": {
       "application/json": {
        "schema": {
         "type": "object"
        }
       },
       "text/csv": {
        "schema": {
         "type": "string"
        }
       },
       "text/markdown": {
        "schema": {
         "type": "string"
        }
       }
      }
     },
     "400": {
      "$ref": "#/components/responses/BadRequest"
     },
     "401": {
      "$ref": "#/components/responses/Unauthorized"
     },
     "403": {
      "$ref": "#/components/responses/Forbidden"
     },
     "404": {
      "$ref": "#/components/responses/NotFound"
     }
    },
    "parameters": [
     {
      "name": "id",
      "in": "path",
      "required": true,
      "schema": {
       "type": "string"
      }
     },
     {
      "name": "format",
      "in": "query",
      "required": false,
      "schema": {
       "enum": [
        "json",
        "csv",
        "md"
       ]
      }
     }
    ],
    "tags": [
     "RunAnywhere"
    ]
   },
   "post": {
    "summary": "Save a run as a JSON or CSV file in the exports folder; says where",
    "responses": {
     "201": {
      "description": "Saved",
      "content": {
       "application/json": {
        "schema": {
         "type": "object",
         "required": [
          "path",
          "fileName"
         ],
         "properties": {
          "path": {
           "type": "string"
          },
          "fileName": {
           "type": "string"
          }
         }
        }
       }
      }
     },
     "400": {
      "$ref": "#/components/responses/BadRequest"
     },
     "401": {
      "$ref": "#/components/responses/Unauthorized"
     },
     "403": {
      "$ref": "#/components/responses/Forbidden"
     },
     "404": {
      "$ref": "#/components/responses/NotFound"
     }
    },
    "parameters": [
     {
      "name": "id",
      "in": "path",
      "required": true,
      "schema": {
       "type": "string"
      }
     },
     {
      "name": "format",
      "in": "query",
      "required": false,
      "schema": {
       "enum": [
        "json",
        "csv"
       ]
      }
     }
    ],
    "tags": [
     "RunAnywhere"
    ]
   }
  },
  "/api/voice": {
   "post": {
    "summary": "A voice turn: voice activity detection, transcription, an answer, the answer spoken",
    "responses": {
     "200": {
      "description": "OK",
      "content": {
       "text/event-stream": {
        "schema": {
         "type": "object",
         "description": "The turn's stages as they finish: `speech` (the segments voice activity detection found), `transcript`, `delta` (pieces of the answer), `audio` (the spoken answer, a base64 WAV file), then `done` with the stage timings; `nospeech` ends a turn without speech; `error`",
         "required": [
          "event",
          "data"
         ],
         "properties": {
          "event": {
           "enum": [
            "speech",
            "nospeech",
            "transcript",
            "delta",
            "audio",
            "done",
            "error"
           ]
          },
          "data": {
           "type": "string"
          },
          "id": {
           "type": "string"
          },
          "retry": {
           "type": "integer"
          }
         },
         "allOf": [
          {
           "if": {
            "properties": {
             "event": {
              "const": "speech"
             }
            }
           },
           "then": {
            "properties": {
             "data": {
              "contentMediaType": "application/json",
              "contentSchema": {
               "type": "object",
               "required": [
                "segments"
               ],
               "properties": {
                "segments": {
                 "type": "array",
                 "items": {
                  "type": "object"
                 }
                }
               }
              }
             }
            }
           }
          },
          {
           "if": {
            "properties": {
             "event": {
              "const": "nospeech"
             }
            }
           },
           "then": {
            "properties": {
             "data": {
              "contentMediaType": "application/json",
              "contentSchema": {
               "type": "object"
              }
             }
            }
           }
          },
          {
           "if": {
            "properties": {
             "event": {
              "const": "transcript"
             }
            }
           },
           "then": {
            "properties": {
             "data": {
              "contentMediaType": "application/json",
              "contentSchema": {
               "type": "object",
               "required": [
                "text"
               ],
               "properties": {
                "text": {
                 "type": "string"
                },
                "language": {
                 "type": "string"
                }
               }
              }
             }
            }
           }
          },
          {
           "if": {
            "properties": {
             "event": {
              "const": "delta"
             }
            }
           },
           "then": {
            "properties": {
             "data": {
              "contentMediaType": "application/json",
              "contentSchema": {
               "type": "object",
               "required": [
                "content"
               ],
               "properties": {
                "content": {
                 "type": "string"
                }
               }
              }
             }
            }
           }
          },
          {
           "if": {
            "properties": {
             "event": {
              "const": "audio"
             }
            }
           },
           "then": {
            "properties": {
             "data": {
              "contentMediaType": "application/json",
              "contentSchema": {
               "type": "object",
               "required": [
                "format",
                "sampleRate",
                "duration",
                "data"
               ],
               "properties": {
                "format": {
                 "const": "wav"
                },
                "sampleRate": {
                 "type": "integer"
                },
                "duration": {
                 "type": "number"
                },
                "data": {
                 "type": "string",
                 "contentEncoding": "base64"
                }
               }
              }
             }
            }
           }
          },
          {
           "if": {
            "properties": {
             "event": {
              "const": "done"
             }
            }
           },
           "then": {
            "properties": {
             "data": {
              "contentMediaType": "application/json",
              "contentSchema": {
               "type": "object",
               "required": [
                "transcript",
                "response",
                "timings"
               ],
               "properties": {
                "transcript": {
                 "type": "string"
                },
                "response": {
                 "type": "string"
                },
                "timings": {
                 "type": "object"
                }
               }
              }
             }
            }
           }
          },
          {
           "if": {
            "properties": {
             "event": {
              "const": "error"
             }
            }
           },
           "then": {
            "properties": {
             "data": {
              "contentMediaType": "application/json",
              "contentSchema": {
               "$ref": "#/components/schemas/Error"
              }
             }
            }
           }
          }
         ]
        }
       }
      }
     },
     "400": {
      "$ref": "#/components/responses/BadRequest"
     },
     "401": {
      "$ref": "#/components/responses/Unauthorized"
     },
     "403": {
      "$ref": "#/components/responses/Forbidden"
     },
     "404": {
      "$ref": "#/components/responses/NotFound"
     },
     "413": {
      "$ref": "#/components/responses/TooLarge"
     },
     "503": {
      "$ref": "#/components/responses/Busy"
     }
    },
    "requestBody": {
     "required": true,
     "content": {
      "multipart/form-data": {
       "schema": {
        "type": "object",
        "required": [
         "file"
        ],
        "properties": {
         "file": {
          "type": "string",
          "format": "binary"
         },
         "model": {
          "type": "string"
         },
         "voice": {
          "type": "string"
         },
         "stt": {
          "type": "string"
         },
         "systemPrompt": {
          "type": "string"
         }
        }
       }
      }
     }
    },
    "tags": [
     "RunAnywhere"
    ]
   }
  },
  "/api/vision/describe": {
   "post": {
    "summary": "Describes an image with a vision-language model (the Vision screen)",
    "responses": {
     "200": {
      "description": "OK",
      "content": {
       "text/event-stream": {
        "schema": {
         "type": "object",
         "description": "`delta` pieces of the answer (`content`) or of the model's reasoning (`reasoning`), then `done` with the VLMResult (text, promptTokens, completionTokens, totalTimeMs, tokensPerSecond, timeToFirstTokenMs, imageEncodeTimeMs, stopReason, modelId), or `error`",
         "required": [
          "event",
          "data"
         ],
         "properties": {
          "event": {
           "enum": [
            "delta",
            "done",
            "error"
           ]
          },
          "data": {
           "type": "string"
          },
          "id": {
           "type": "string"
          },
          "retry": {
           "type": "integer"
          }
         },
         "allOf": [
          {
           "if": {
            "properties": {
             "event": {
              "const": "delta"
             }
            }
           },
           "then": {
            "properties": {
             "data": {
              "contentMediaType": "application/json",
              "contentSchema": {
               "type": "object",
               "properties": {
                "content": {
                 "type": "string"
                },
                "reasoning": {
                 "type": "string"
                }
               },
               "minProperties": 1,
               "maxProperties": 1
              }
             }
            }
           }
          },
          {
           "if": {
            "properties": {
             "event": {
              "const": "done"
             }
            }
           },
           "then": {
            "properties": {
             "data": {
              "contentMediaType": "application/json",
              "contentSchema": {
               "type": "object",
               "required": [
                "text"
               ],
               "properties": {
                "text": {
                 "type": "string"
                }
               }
              }
             }
            }
           }
          },
          {
           "if": {
            "properties": {
             "event": {
              "const": "error"
             }
            }
           },
           "then": {
            "properties": {
             "data": {
              "contentMediaType": "application/json",
              "contentSchema": {
               "$ref": "#/components/schemas/Error"
              }
             }
            }
           }
          }
         ]
        }
       }
      }
     },
     "400": {
      "$ref": "#/components/responses/BadRequest"
     },
     "401": {
      "$ref": "#/components/responses/Unauthorized"
     },
     "403": {
      "$ref": "#/components/responses/Forbidden"
     },
     "404": {
      "$ref": "#/components/responses/NotFound"
     },
     "413": {
      "$ref": "#/components/responses/TooLarge"
     },
     "503": {
      "$ref": "#/components/responses/Busy"
     }
    },
    "requestBody": {
     "required": true,
     "content": {
      "multipart/form-data": {
       "schema": {
        "type": "object",
        "required": [
         "file",
         "prompt"
        ],
        "properties": {
         "file": {
          "type": "string",
          "format": "binary",
          "description": "A PNG, JPEG, GIF or BMP image"
         },
         "prompt": {
          "type": "string"
         },
         "model": {
          "type": "string",
          "description": "A vision-language model; by default the first downloaded one"
         },
         "maxTokens": {
          "type": "integer",
          "minimum": 1
         },
         "temperature": {
          "type": "number",
          "minimum": 0,
          "maximum": 2
         }
        }
       }
      }
     }
    },
    "tags": [
     "RunAnywhere"
    ]
   }
  },
  "/api/vision/imagine": {
   "post": {
    "summary": "Generates an image with a diffusion model (the Vision screen)",
    "responses": {
     "200": {
      "description": "OK",
      "content": {
       "text/event-stream": {
        "schema": {
         "type": "object",
         "description": "`progress` after each step (DiffusionProgress: progress, currentStep, totalSteps, stage, elapsedMs, etaMs), then `done` with the DiffusionResult (imageData as base64 PNG, width, height, seedUsed, steps, generationTimeMs, safetyFlagged, modelId), or `error`",
         "required": [
          "event",
          "data"
         ],
         "properties": {
          "event": {
           "enum": [
            "progress",
            "done",
            "error"
           ]
          },
          "data": {
           "type": "string"
          },
          "id": {
           "type": "string"
          },
          "retry": {
           "type": "integer"
          }
         },
         "allOf": [
          {
           "if": {
            "properties": {
             "event": {
              "const": "progress"
             }
            }
           },
           "then": {
            "properties": {
             "data": {
              "contentMediaType": "application/json",
              "contentSchema": {
               "type": "object"
              }
             }
            }
           }
          },
          {
           "if": {
            "properties": {
             "event": {
              "const": "done"
             }
            }
           },
           "then": {
            "properties": {
             "data": {
              "contentMediaType": "application/json",
              "contentSchema": {
               "type": "object",
               "required": [
                "imageData"
               ],
               "properties": {
                "imageData": {
                 "type": "string",
                 "contentEncoding": "base64"
                }
               }
              }
             }
            }
           }
          },
          {
           "if": {
            "properties": {
             "event": {
              "const": "error"
             }
            }
           },
           "then": {
            "properties": {
             "data": {
              "contentMediaType": "application/json",
              "contentSchema": {
               "$ref": "#/components/schemas/Error"
              }
             }
            }
           }
          }
         ]
        }
       }
      }
     },
     "400": {
      "$ref": "#/components/responses/BadRequest"
     },
     "401": {
      "$ref": "#/components/responses/Unauthorized"
     },
     "403": {
      "$ref": "#/components/responses/Forbidden"
     },
     "404": {
      "$ref": "#/components/responses/NotFound"
     },
     "413": {
      "$ref": "#/components/responses/TooLarge"
     },
     "415": {
      "$ref": "#/components/responses/UnsupportedMediaType"
     },
     "503": {
      "$ref": "#/components/responses/Busy"
     }
    },
    "requestBody": {
     "required": true,
     "content": {
      "application/json": {
       "schema": {
        "type": "object",
        "required": [
         "prompt"
        ],
        "properties": {
         "prompt": {
          "type": "string",
          "maxLength": 2000
         },
         "model": {
          "type": "string",
          "description": "An image-generation model; by default the first downloaded one"
         },
         "negativePrompt": {
          "type": "string",
          "maxLength": 2000
         },
         "width": {
          "type": "integer",
          "minimum": 64,
          "maximum": 2048,
          "multipleOf": 8
         },
         "height": {
          "type": "integer",
          "minimum": 64,
          "maximum": 2048,
          "multipleOf": 8
         },
         "steps": {
          "type": "integer",
          "minimum": 1,
          "maximum": 150
         },
         "guidanceScale": {
          "type": "number",
          "minimum": 0,
          "maximum": 30
         },
         "seed": {
          "type": "integer",
          "minimum": -1,
          "maximum": 9223372036854775807
         },
         "scheduler": {
          "$ref": "#/components/schemas/DiffusionScheduler"
         }
        }
       }
      }
     }
    },
    "tags": [
     "RunAnywhere"
    ]
   }
  },
  "/api/environment": {
   "get": {
    "summary": "The environments, API keys masked",
    "responses": {
     "200": {
      "description": "OK",
      "content": {
       "application/json": {
        "schema": {
         "$ref": "#/components/schemas/Environments"
        }
       }
      }
     },
     "400": {
      "$ref": "#/components/responses/BadRequest"
     },
     "401": {
      "$ref": "#/components/responses/Unauthorized"
     },
     "403": {
      "$ref": "#/components/responses/Forbidden"
     }
    },
    "tags": [
     "RunAnywhere"
    ]
   },
   "put": {
    "summary": "Select an environment, optionally storing its base URL and API key",
    "responses": {
     "200": {
      "description": "OK",
      "content": {
       "application/json": {
        "schema": {
         "$ref": "#/components/schemas/Environments"
        }
       }
      }
     },
     "400": {
      "$ref": "#/components/responses/BadRequest"
     },
     "401": {
      "$ref": "#/components/responses/Unauthorized"
     },
     "403": {
      "$ref": "#/components/responses/Forbidden"
     },
     "413": {
      "$ref": "#/components/responses/TooLarge"
     },
     "415": {
      "$ref": "#/components/responses/UnsupportedMediaType"
     }
    },
    "requestBody": {
     "required": true,
     "content": {
      "application/json": {
       "schema": {
        "$ref": "#/components/schemas/EnvironmentChange"
       }
      }
     }
    },
    "tags": [
     "RunAnywhere"
    ]
   }
  },
  "/api/rag/collections": {
   "get": {
    "summary": "The document collections, with their embedding model and document and chunk counts",
    "tags": [
     "RunAnywhere"
    ],
    "responses": {
     "200": {
      "description": "OK",
      "content": {
       "application/json": {
        "schema": {
         "type": "object",
         "required": [
          "collections"
         ],
         "properties": {
          "collections": {
           "type": "array",
           "items": {
            "$ref": "#/components/schemas/RAGCollection"
           }
          }
         }
        }
       }
      }
     },
     "400": {
      "$ref": "#/components/responses/BadRequest"
     },
     "401": {
      "$ref": "#/components/responses/Unauthorized"
     },
     "403": {
      "$ref": "#/components/responses/Forbidden"
     }
    }
   }
  },
  "/api/rag/collections/{name}": {
   "delete": {
    "summary": "Delete a collection with its documents and vectors",
    "tags": [
     "RunAnywhere"
    ],
    "parameters": [
     {
      "name": "name",
      "in": "path",
      "required": true,
      "schema": {
       "type": "string",
       "pattern": "^[A-Za-z0-9_][A-Za-z0-9._-]{0,63}$"
      },
      "description": "A collection's name: 1 to 64 letters, digits, '.', '_' and '-', not starting with '.' or '-'"
     }
    ],
    "responses": {
     "204": {
      "description": "Deleted"
     },
     "400": {
      "$ref": "#/components/responses/BadRequest"
     },
     "401": {
      "$ref": "#/components/responses/Unauthorized"
     },
     "403": {
      "$ref": "#/components/responses/Forbidden"
     },
     "404": {
      "$ref": "#/components/responses/NotFound"
     }
    }
   }
  },
  "/api/rag/collections/{name}/documents": {
   "get": {
    "summary": "A collection's documents, by path",
    "tags": [
     "RunAnywhere"
    ],
    "parameters": [
     {
      "name": "name",
      "in": "path",
      "required": true,
      "schema": {
       "type": "string",
       "pattern": "^[A-Za-z0-9_][A-Za-z0-9._-]{0,63}$"
      },
      "description": "A collection's name: 1 to 64 letters, digits, '.', '_' and '-', not starting with '.' or '-'"
     }
    ],
    "responses": {
     "200": {
      "description": "OK",
      "content": {
       "application/json": {
        "schema": {
         "type": "object",
         "required": [
          "documents"
         ],
         "properties": {
          "documents": {
           "type": "array",
           "items": {
            "$ref": "#/components/schemas/RAGDocument"
           }
          }
         }
        }
       }
      }
     },
     "400": {
      "$ref": "#/components/responses/BadRequest"
     },
     "401": {
      "$ref": "#/components/responses/Unauthorized"
     },
     "403": {
      "$ref": "#/components/responses/Forbidden"
     },
     "404": {
      "$ref": "#/components/responses/NotFound"
     }
    }
   },
   "post": {
    "summary": "Upload documents into a collection (made on first use); nothing is stored unless every file is read",
    "tags": [
     "RunAnywhere"
    ],
    "parameters": [
     {
      "name": "name",
      "in": "path",
      "required": true,
      "schema": {
       "type": "string",
       "pattern": "^[A-Za-z0-9_][A-Za-z0-9._-]{0,63}$"
      },
      "description": "A collection's name: 1 to 64 letters, digits, '.', '_' and '-', not starting with '.' or '-'"
     }
    ],
    "requestBody": {
     "required": true,
     "content": {
      "multipart/form-data": {
       "schema": {
        "type": "object",
        "required": [
         "files[]"
        ],
        "properties": {
         "files[]": {
          "type": "array",
          "items": {
           "type": "string",
           "format": "binary"
          },
          "description": "Text, Markdown or HTML files, UTF-8, each named (its extension tells its format); one named as a stored document replaces it. PDF, Word and binary files are refused"
         },
         "embeddingModel": {
          "type": "string",
          "description": "A new collection's embedding model (default all-minilm-l6-v2); an existing collection keeps its own"
         }
        }
       }
      }
     }
    },
    "responses": {
     "201": {
      "description": "Created",
      "content": {
       "application/json": {
        "schema": {
         "$ref": "#/components/schemas/RAGIngestReport"
        }
       }
      }
     },
     "400": {
      "$ref": "#/components/responses/BadRequest"
     },
     "401": {
      "$ref": "#/components/responses/Unauthorized"
     },
     "403": {
      "$ref": "#/components/responses/Forbidden"
     },
     "404": {
      "$ref": "#/components/responses/NotFound"
     },
     "413": {
      "$ref": "#/components/responses/TooLarge"
     },
     "503": {
      "$ref": "#/components/responses/Busy"
     }
    }
   },
   "delete": {
    "summary": "Delete one document of a collection",
    "tags": [
     "RunAnywhere"
    ],
    "parameters": [
     {
      "name": "name",
      "in": "path",
      "required": true,
      "schema": {
       "type": "string",
       "pattern": "^[A-Za-z0-9_][A-Za-z0-9._-]{0,63}$"
      },
      "description": "A collection's name: 1 to 64 letters, digits, '.', '_' and '-', not starting with '.' or '-'"
     },
     {
      "name": "path",
      "in": "query",
      "required": true,
      "schema": {
       "type": "string",
       "minLength": 1
      },
      "description": "The document's path, as listed"
     }
    ],
    "responses": {
     "204": {
      "description": "Deleted"
     },
     "400": {
      "$ref": "#/components/responses/BadRequest"
     },
     "401": {
      "$ref": "#/components/responses/Unauthorized"
     },
     "403": {
      "$ref": "#/components/responses/Forbidden"
     },
     "404": {
      "$ref": "#/components/responses/NotFound"
     }
    }
   }
  },
  "/api/rag/collections/{name}/passages": {
   "get": {
    "summary": "A stored passage (chunk): what a source's number opens",
    "tags": [
     "RunAnywhere"
    ],
    "parameters": [
     {
      "name": "name",
      "in": "path",
      "required": true,
      "schema": {
       "type": "string",
       "pattern": "^[A-Za-z0-9_][A-Za-z0-9._-]{0,63}$"
      },
      "description": "A collection's name: 1 to 64 letters, digits, '.', '_' and '-', not starting with '.' or '-'"
     },
     {
      "name": "document",
      "in": "query",
      "required": true,
      "schema": {
       "type": "string",
       "minLength": 1
      },
      "description": "The document's path, as a source names it"
     },
     {
      "name": "ordinal",
      "in": "query",
      "required": true,
      "schema": {
       "type": "integer",
       "minimum": 0
      },
      "description": "The chunk's place in its document, from 0"
     }
    ],
    "responses": {
     "200": {
      "description": "OK",
      "content": {
       "application/json": {
        "schema": {
         "$ref": "#/components/schemas/RAGPassage"
        }
       }
      }
     },
     "400": {
      "$ref": "#/components/responses/BadRequest"
     },
     "401": {
      "$ref": "#/components/responses/Unauthorized"
     },
     "403": {
      "$ref": "#/components/responses/Forbidden"
     },
     "404": {
      "$ref": "#/components/responses/NotFound"
     }
    }
   }
  },
  "/api/rag/collections/{name}/questions": {
   "post": {
    "summary": "Ask a question answered from a collection, with numbered sources; streamed unless `stream` is false",
    "tags": [
     "RunAnywhere"
    ],
    "parameters": [
     {
      "name": "name",
      "in": "path",
      "required": true,
      "schema": {
       "type": "string",
       "pattern": "^[A-Za-z0-9_][A-Za-z0-9._-]{0,63}$"
      },
      "description": "A collection's name: 1 to 64 letters, digits, '.', '_' and '-', not starting with '.' or '-'"
     }
    ],
    "requestBody": {
     "required": true,
     "content": {
      "application/json": {
       "schema": {
        "$ref": "#/components/schemas/RAGQuestion"
       }
      }
     }
    },
    "responses": {
     "200": {
      "description": "OK",
      "content": {
       "text/event-stream": {
        "schema": {
         "type": "object",
         "description": "`delta` pieces of the answer (`content`) or of the model's reasoning (`reasoning`), then `done` with the answer and its numbered sources, or `error`",
         "required": [
          "event",
          "data"
         ],
         "properties": {
          "event": {
           "enum": [
            "delta",
            "done",
            "error"
           ]
          },
          "data": {
           "type": "string"
          },
          "id": {
           "type": "string"
          },
          "retry": {
           "type": "integer"
          }
         },
         "allOf": [
          {
           "if": {
            "properties": {
             "event": {
              "const": "delta"
             }
            }
           },
           "then": {
            "properties": {
             "data": {
              "contentMediaType": "application/json",
              "contentSchema": {
               "type": "object",
               "properties": {
                "content": {
                 "type": "string"
                },
                "reasoning": {
                 "type": "string"
                }
               },
               "minProperties": 1,
               "maxProperties": 1
              }
             }
            }
           }
          },
          {
           "if": {
            "properties": {
             "event": {
              "const": "done"
             }
            }
           },
           "then": {
            "properties": {
             "data": {
              "contentMediaType": "application/json",
              "contentSchema": {
               "$ref": "#/components/schemas/RAGAnswer"
              }
             }
            }
           }
          },
          {
           "if": {
            "properties": {
             "event": {
              "const": "error"
             }
            }
           },
           "then": {
            "properties": {
             "data": {
              "contentMediaType": "application/json",
              "contentSchema": {
               "$ref": "#/components/schemas/Error"
              }
             }
            }
           }
          }
         ]
        }
       },
       "application/json": {
        "schema": {
         "$ref": "#/components/schemas/RAGAnswer"
        }
       }
      }
     },
     "400": {
      "$ref": "#/components/responses/BadRequest"
     },
     "401": {
      "$ref": "#/components/responses/Unauthorized"
     },
     "403": {
      "$ref": "#/components/responses/Forbidden"
     },
     "404": {
      "$ref": "#/components/responses/NotFound"
     },
     "413": {
      "$ref": "#/components/responses/TooLarge"
     },
     "415": {
      "$ref": "#/components/responses/UnsupportedMediaType"
     },
     "503": {
      "$ref": "#/components/responses/Busy"
     }
    }
   }
  },
  "/api/chat": {
   "post": {
    "summary": "ollama's chat: the assistant's next message, whole or as lines",
    "description": "Each line maps one of the SDK's generation events; the body may come as JSON or, as curl -d sends it, labelled application/x-www-form-urlencoded",
    "responses": {
     "200": {
      "description": "OK",
      "content": {
       "application/json": {
        "schema": {
         "$ref": "#/components/schemas/OllamaChatResponse"
        }
       },
       "application/x-ndjson": {
        "schema": {
         "oneOf": [
          {
           "$ref": "#/components/schemas/OllamaChatResponse"
          },
          {
           "$ref": "#/components/schemas/OllamaError"
          }
         ],
         "description": "With stream (the default): each line an OllamaChatResponse, a piece of text, reasoning or a tool call, then the last with done true; an OllamaError line if the generation fails"
        }
       }
      }
     },
     "400": {
      "$ref": "#/components/responses/OllamaFailure"
     },
     "401": {
      "$ref": "#/components/responses/OllamaFailure"
     },
     "403": {
      "$ref": "#/components/responses/OllamaFailure"
     },
     "404": {
      "$ref": "#/components/responses/OllamaFailure"
     },
     "413": {
      "$ref": "#/components/responses/OllamaFailure"
     },
     "415": {
      "$ref": "#/components/responses/OllamaFailure"
     },
     "500": {
      "$ref": "#/components/responses/OllamaFailure"
     },
     "503": {
      "$ref": "#/components/responses/OllamaFailure"
     }
    },
    "requestBody": {
     "required": true,
     "content": {
      "application/json": {
       "schema": {
        "$ref": "#/components/schemas/OllamaChatRequest"
       }
      }
     }
    },
    "tags": [
     "ollama"
    ]
   }
  },
  "/api/generate": {
   "post": {
    "summary": "ollama's completion of a prompt, whole or as lines",
    "responses": {
     "200": {
      "description": "OK",
      "content": {
       "application/json": {
        "schema": {
         "$ref": "#/components/schemas/OllamaGenerateResponse"
        }
       },
       "application/x-ndjson": {
        "schema": {
         "oneOf": [
          {
           "$ref": "#/components/schemas/OllamaGenerateResponse"
          },
          {
           "$ref": "#/components/schemas/OllamaError"
          }
         ],
         "description": "With stream (the default): each line an OllamaGenerateResponse, then the last with done true; an OllamaError line if the generation fails"
        }
       }
      }
     },
     "400": {
      "$ref": "#/components/responses/OllamaFailure"
     },
     "401": {
      "$ref": "#/components/responses/OllamaFailure"
     },
     "403": {
      "$ref": "#/components/responses/OllamaFailure"
     },
     "404": {
      "$ref": "#/components/responses/OllamaFailure"
     },
     "413": {
      "$ref": "#/components/responses/OllamaFailure"
     },
     "415": {
      "$ref": "#/components/responses/OllamaFailure"
     },
     "500": {
      "$ref": "#/components/responses/OllamaFailure"
     },
     "503": {
      "$ref": "#/components/responses/OllamaFailure"
     }
    },
    "requestBody": {
     "required": true,
     "content": {
      "application/json": {
       "schema": {
        "$ref": "#/components/schemas/OllamaGenerateRequest"
       }
      }
     }
    },
    "tags": [
     "ollama"
    ]
   }
  },
  "/api/embed": {
   "post": {
    "summary": "ollama's embeddings: a vector per text",
    "responses": {
     "200": {
      "description": "OK",
      "content": {
       "application/json": {
        "schema": {
         "$ref": "#/components/schemas/OllamaEmbedResponse"
        }
       }
      }
     },
     "400": {
      "$ref": "#/components/responses/OllamaFailure"
     },
     "401": {
      "$ref": "#/components/responses/OllamaFailure"
     },
     "403": {
      "$ref": "#/components/responses/OllamaFailure"
     },
     "404": {
      "$ref": "#/components/responses/OllamaFailure"
     },
     "413": {
      "$ref": "#/components/responses/OllamaFailure"
     },
     "415": {
      "$ref": "#/components/responses/OllamaFailure"
     },
     "500": {
      "$ref": "#/components/responses/OllamaFailure"
     },
     "503": {
      "$ref": "#/components/responses/OllamaFailure"
     }
    },
    "requestBody": {
     "required": true,
     "content": {
      "application/json": {
       "schema": {
        "$ref": "#/components/schemas/OllamaEmbedRequest"
       }
      }
     }
    },
    "tags": [
     "ollama"
    ]
   }
  },
  "/api/embeddings": {
   "post": {
    "summary": "ollama's older embeddings route: one prompt, one vector",
    "responses": {
     "200": {
      "description": "OK",
      "content": {
       "application/json": {
        "schema": {
         "$ref": "#/components/schemas/OllamaEmbeddingsResponse"
        }
       }
      }
     },
     "400": {
      "$ref": "#/components/responses/OllamaFailure"
     },
     "401": {
      "$ref": "#/components/responses/OllamaFailure"
     },
     "403": {
      "$ref": "#/components/responses/OllamaFailure"
     },
     "404": {
      "$ref": "#/components/responses/OllamaFailure"
     },
     "413": {
      "$ref": "#/components/responses/OllamaFailure"
     },
     "415": {
      "$ref": "#/components/responses/OllamaFailure"
     },
     "500": {
      "$ref": "#/components/responses/OllamaFailure"
     },
     "503": {
      "$ref": "#/components/responses/OllamaFailure"
     }
    },
    "requestBody": {
     "required": true,
     "content": {
      "application/json": {
       "schema": {
        "$ref": "#/components/schemas/OllamaEmbeddingsRequest"
       }
      }
     }
    },
    "tags": [
     "ollama"
    ]
   }
  },
  "/api/tags": {
   "get": {
    "summary": "ollama's list of the installed models it runs (language, vision-language with their projector, embedding)",
    "responses": {
     "200": {
      "description": "OK",
      "content": {
       "application/json": {
        "schema": {
         "$ref": "#/components/schemas/OllamaModelList"
        }
       }
      }
     },
     "401": {
      "$ref": "#/components/responses/OllamaFailure"
     },
     "403": {
      "$ref": "#/components/responses/OllamaFailure"
     }
    },
    "tags": [
     "ollama"
    ]
   }
  },
  "/api/show": {
   "post": {
    "summary": "ollama's description of an installed model",
    "responses": {
     "200": {
      "description": "OK",
      "content": {
       "application/json": {
        "schema": {
         "$ref": "#/components/schemas/OllamaShowResponse"
        }
       }
      }
     },
     "400": {
      "$ref": "#/components/responses/OllamaFailure"
     },
     "401": {
      "$ref": "#/components/responses/OllamaFailure"
     },
     "403": {
      "$ref": "#/components/responses/OllamaFailure"
     },
     "404": {
      "$ref": "#/components/responses/OllamaFailure"
     },
     "413": {
      "$ref": "#/components/responses/OllamaFailure"
     },
     "415": {
      "$ref": "#/components/responses/OllamaFailure"
     }
    },
    "requestBody": {
     "required": true,
     "content": {
      "application/json": {
       "schema": {
        "$ref": "#/components/schemas/OllamaModelRequest"
       }
      }
     }
    },
    "tags": [
     "ollama"
    ]
   }
  },
  "/api/ps": {
   "get": {
    "summary": "ollama's list of the loaded models",
    "responses": {
     "200": {
      "description": "OK",
      "content": {
       "application/json": {
        "schema": {
         "$ref": "#/components/schemas/OllamaLoadedModelList"
        }
       }
      }
     },
     "401": {
      "$ref": "#/components/responses/OllamaFailure"
     },
     "403": {
      "$ref": "#/components/responses/OllamaFailure"
     }
    },
    "tags": [
     "ollama"
    ]
   }
  },
  "/api/pull": {
   "post": {
    "summary": "ollama's pull: download a catalog model or a hf.co/OWNER/REPO:QUANT reference",
    "responses": {
     "200": {
      "description": "OK",
      "content": {
       "application/json": {
        "schema": {
         "$ref": "#/components/schemas/OllamaPullProgress"
        }
       },
       "application/x-ndjson": {
        "schema": {
         "oneOf": [
          {
           "$ref": "#/components/schemas/OllamaPullProgress"
          },
          {
           "$ref": "#/components/schemas/OllamaError"
          }
         ],
         "description": "With stream (the default): progress lines ending with status success; an OllamaError line if the download fails"
        }
       }
      }
     },
     "400": {
      "$ref": "#/components/responses/OllamaFailure"
     },
     "401": {
      "$ref": "#/components/responses/OllamaFailure"
     },
     "403": {
      "$ref": "#/components/responses/OllamaFailure"
     },
     "404": {
      "$ref": "#/components/responses/OllamaFailure"
     },
     "413": {
      "$ref": "#/components/responses/OllamaFailure"
     },
     "415": {
      "$ref": "#/components/responses/OllamaFailure"
     },
     "500": {
      "$ref": "#/components/responses/OllamaFailure"
     },
     "503": {
      "$ref": "#/components/responses/OllamaFailure"
     }
    },
    "requestBody": {
     "required": true,
     "content": {
      "application/json": {
       "schema": {
        "$ref": "#/components/schemas/OllamaModelRequest"
       }
      }
     }
    },
    "tags": [
     "ollama"
    ]
   }
  },
  "/api/delete": {
   "delete": {
    "summary": "ollama's delete: remove an installed model's files",
    "responses": {
     "200": {
      "description": "Deleted (no body)"
     },
     "400": {
      "$ref": "#/components/responses/OllamaFailure"
     },
     "401": {
      "$ref": "#/components/responses/OllamaFailure"
     },
     "403": {
      "$ref": "#/components/responses/OllamaFailure"
     },
     "404": {
      "$ref": "#/components/responses/OllamaFailure"
     },
     "413": {
      "$ref": "#/components/responses/OllamaFailure"
     },
     "415": {
      "$ref": "#/components/responses/OllamaFailure"
     },
     "500": {
      "$ref": "#/components/responses/OllamaFailure"
     }
    },
    "requestBody": {
     "required": true,
     "content": {
      "application/json": {
       "schema": {
        "$ref": "#/components/schemas/OllamaModelRequest"
       }
      }
     }
    },
    "tags": [
     "ollama"
    ]
   }
  },
  "/api/version": {
   "get": {
    "summary": "ollama's version route: the SDK's version",
    "responses": {
     "200": {
      "description": "OK",
      "content": {
       "application/json": {
        "schema": {
         "$ref": "#/components/schemas/OllamaVersion"
        }
       }
      }
     },
     "401": {
      "$ref": "#/components/responses/OllamaFailure"
     },
     "403": {
      "$ref": "#/components/responses/OllamaFailure"
     }
    },
    "tags": [
     "ollama"
    ]
   }
  }
 },
 "components": {
  "schemas": {
   "RAGCollection": {
    "type": "object",
    "required": [
     "name",
     "embeddingModelId",
     "dimensions",
     "createdAt",
     "documentCount",
     "chunkCount"
    ],
    "properties": {
     "name": {
      "type": "string"
     },
     "embeddingModelId": {
      "type": "string"
     },
     "dimensions": {
      "type": "integer"
     },
     "createdAt": {
      "type": "string",
      "format": "date-time"
     },
     "documentCount": {
      "type": "integer"
     },
     "chunkCount": {
      "type": "integer"
     }
    }
   },
   "RAGDocument": {
    "type": "object",
    "required": [
     "collection",
     "path",
     "format",
     "sha256",
     "size",
     "chunkCount",
     "ingestedAt"
    ],
    "properties": {
     "collection": {
      "type": "string"
     },
     "path": {
      "type": "string",
      "description": "An upload's file name, or the absolute path `runanywhere rag ingest` read"
     },
     "format": {
      "enum": [
       "text",
       "markdown",
       "html"
      ]
     },
     "sha256": {
      "type": "string"
     },
     "size": {
      "type": "integer"
     },
     "chunkCount": {
      "type": "integer"
     },
     "ingestedAt": {
      "type": "string",
      "format": "date-time"
     }
    }
   },
   "RAGIngestReport": {
    "type": "object",
    "required": [
     "collection",
     "embeddingModelId",
     "documents",
     "embeddingTokens"
    ],
    "properties": {
     "collection": {
      "type": "string"
     },
     "embeddingModelId": {
      "type": "string"
     },
     "embeddingTokens": {
      "type": "integer"
     },
     "documents": {
      "type": "array",
      "items": {
       "type": "object",
       "required": [
        "path",
        "format",
        "chunkCount",
        "replaced"
       ],
       "properties": {
        "path": {
         "type": "string"
        },
        "format": {
         "enum": [
          "text",
          "markdown",
          "html"
         ]
        },
        "chunkCount": {
         "type": "integer"
        },
        "replaced": {
         "type": "boolean"
        }
       }
      }
     }
    }
   },
   "RAGPassage": {
    "type": "object",
    "required": [
     "collection",
     "documentPath",
     "ordinal",
     "documentChunkCount",
     "text",
     "start",
     "end"
    ],
    "properties": {
     "collection": {
      "type": "string"
     },
     "documentPath": {
      "type": "string"
     },
     "ordinal": {
      "type": "integer"
     },
     "documentChunkCount": {
      "type": "integer"
     },
     "text": {
      "type": "string"
     },
     "start": {
      "type": "integer",
      "description": "Where it starts in its document's text, in Unicode scalars"
     },
     "end": {
      "type": "integer"
     }
    }
   },
   "RAGQuestion": {
    "type": "object",
    "required": [
     "question"
    ],
    "properties": {
     "question": {
      "type": "string",
      "pattern": "\\S",
      "description": "Not blank"
     },
     "model": {
      "type": "string",
      "description": "A language model (default smollm2-135m-instruct-q4_1)"
     },
     "topK": {
      "type": "integer",
      "minimum": 1,
      "maximum": 100,
      "description": "Passages retrieved (default 4)"
     },
     "reranker": {
      "type": "string",
      "minLength": 1,
      "description": "A reranker id, or `none`: 4 times topK passages (at most 100) by cosine similarity are reranked and the topK best kept (default: the first downloaded reranker, if any)"
     },
     "maxTokens": {
      "type": "integer",
      "minimum": 1
     },
     "temperature": {
      "type": "number",
      "minimum": 0,
      "maximum": 2
     },
     "seed": {
      "type": "integer",
      "minimum": 0,
      "maximum": 4294967295
     },
     "stream": {
      "type": "boolean",
      "description": "Server-sent events (default) or one JSON answer"
     }
    }
   },
   "RAGAnswer": {
    "type": "object",
    "required": [
     "answer",
     "sources",
     "collection",
     "model",
     "stopReason",
     "tokensUsed",
     "tokensPerSecond"
    ],
    "properties": {
     "answer": {
      "type": "string"
     },
     "reasoning": {
      "type": "string"
     },
     "collection": {
      "type": "string"
     },
     "reranker": {
      "type": "string",
      "description": "The reranker that ordered the sources; absent when they are in cosine order"
     },
     "model": {
      "type": "string"
     },
     "stopReason": {
      "type": "string"
     },
     "tokensUsed": {
      "type": "integer"
     },
     "tokensPerSecond": {
      "type": "number"
     },
     "sources": {
      "type": "array",
      "description": "Best first (by rerankScore when reranked); `[n]` in the answer cites the source numbered n",
      "items": {
       "type": "object",
       "required": [
        "number",
        "document",
        "ordinal",
        "text",
        "start",
        "end",
        "score"
       ],
       "properties": {
        "number": {
         "type": "integer",
         "minimum": 1
        },
        "document": {
         "type": "string"
        },
        "ordinal": {
         "type": "integer"
        },
        "text": {
         "type": "string"
        },
        "start": {
         "type": "integer"
        },
        "end": {
         "type": "integer"
        },
        "score": {
         "type": "number",
         "description": "Cosine similarity of the passage's vector and the question's"
        },
        "rerankScore": {
         "type": "number",
         "description": "The reranker's score of the passage read with the question; absent when not reranked"
        }
       }
      }
     }
    }
   },
   "Error": {
    "type": "object",
    "required": [
     "error"
    ],
    "properties": {
     "error": {
      "type": "object",
      "required": [
       "message",
       "type"
      ],
      "properties": {
       "message": {
        "type": "string"
       },
       "type": {
        "type": "string"
       },
       "param": {
        "type": [
         "string",
         "null"
        ]
       },
       "code": {
        "type": [
         "string",
         "null"
        ]
       }
      }
     }
    }
   },
   "Model": {
    "type": "object",
    "required": [
     "id",
     "object",
     "created",
     "owned_by"
    ],
    "properties": {
     "id": {
      "type": "string"
     },
     "object": {
      "const": "model"
     },
     "created": {
      "type": "integer"
     },
     "owned_by": {
      "type": "string"
     },
     "category": {
      "type": "string",
      "description": "What the model does, and so the route that takes it: language and multimodal (chat and completions), embedding, reranking, speech-synthesis, speech-recognition, image-generation"
     }
    }
   },
   "ModelList": {
    "type": "object",
    "required": [
     "object",
     "data"
    ],
    "properties": {
     "object": {
      "const": "list"
     },
     "data": {
      "type": "array",
      "items": {
       "$ref": "#/components/schemas/Model"
      }
     }
    }
   },
   "Message": {
    "type": "object",
    "required": [
     "role"
    ],
    "properties": {
     "role": {
      "enum": [
       "system",
       "developer",
       "user",
       "assistant",
       "tool"
      ]
     },
     "content": {
      "oneOf": [
       {
        "type": "string"
       },
       {
        "type": "array",
        "items": {
         "oneOf": [
          {
           "type": "object",
           "required": [
            "type",
            "text"
           ],
           "properties": {
            "type": {
             "const": "text"
            },
            "text": {
             "type": "string"
            }
           }
          },
          {
           "type": "object",
           "required": [
            "type",
            "image_url"
           ],
           "description": "An image for a vision-language model, as a data: URL (PNG, JPEG, GIF or BMP); remote URLs are refused",
           "properties": {
            "type": {
             "const": "image_url"
            },
            "image_url": {
             "type": "object",
             "required": [
              "url"
             ],
             "properties": {
              "url": {
               "type": "string",
               "pattern": "^data:"
              }
             }
            }
           }
          }
         ]
        }
       },
       {
        "type": "null"
       }
      ]
     },
     "tool_calls": {
      "type": "array",
      "items": {
       "$ref": "#/components/schemas/ToolCall"
      },
      "description": "The calls an assistant message made"
     },
     "tool_call_id": {
      "type": "string",
      "description": "Which call a tool message answers"
     }
    }
   },
   "GenerationFields": {
    "type": "object",
    "description": "What both completion routes take",
    "required": [
     "model"
    ],
    "properties": {
     "model": {
      "type": "string",
      "minLength": 1
     },
     "max_tokens": {
      "type": "integer",
      "minimum": 1,
      "maximum": 9223372036854775807
     },
     "max_completion_tokens": {
      "type": "integer",
      "minimum": 1,
      "maximum": 9223372036854775807,
      "description": "Takes the place of max_tokens"
     },
     "temperature": {
      "type": "number",
      "minimum": 0,
      "maximum": 2
     },
     "top_p": {
      "type": "number",
      "exclusiveMinimum": 0,
      "maximum": 1
     },
     "top_k": {
      "type": "integer",
      "minimum": 0,
      "maximum": 9223372036854775807
     },
     "seed": {
      "type": "integer",
      "minimum": 0,
      "maximum": 4294967295
     },
     "stop": {
      "oneOf": [
       {
        "type": "string",
        "minLength": 1
       },
       {
        "type": "array",
        "items": {
         "type": "string",
         "minLength": 1
        }
       }
      ],
      "description": "Stop sequences (none empty)"
     },
     "n": {
      "type": "integer",
      "minimum": 1,
      "maximum": 1,
      "description": "Only 1 choice is supported"
     },
     "stream": {
      "type": "boolean"
     },
     "stream_options": {
      "type": "object",
      "properties": {
       "include_usage": {
        "type": "boolean"
       }
      }
     },
     "keep_alive": {
      "$ref": "#/components/schemas/KeepAlive"
     },
     "response_format": {
      "type": "object",
      "required": [
       "type"
      ],
      "description": "The output the model must keep to (constrained sampling: valid by construction). json_schema supports type, enum, const, properties/required/additionalProperties, string lengths, pattern and formats date/time/date-time/uuid, integer and number bounds, items/prefixItems/minItems/maxItems, anyOf/oneOf, $ref into $defs; anything else is a 400 naming the keyword",
      "properties": {
       "type": {
        "type": "string",
        "enum": [
         "text",
         "json_object",
         "json_schema"
        ]
       },
       "json_schema": {
        "type": "object",
        "required": [
         "schema"
        ],
        "properties": {
         "name": {
          "type": "string"
         },
         "schema": {
          "type": "object"
         },
         "strict": {
          "type": "boolean",
          "description": "Accepted; the output always keeps to the schema"
         }
        }
       }
      },
      "oneOf": [
       {
        "properties": {
         "type": {
          "enum": [
           "text",
           "json_object"
          ]
         }
        }
       },
       {
        "required": [
         "json_schema"
        ],
        "properties": {
         "type": {
          "const": "json_schema"
         }
        }
       }
      ]
     },
     "grammar": {
      "type": "string",
      "description": "A GBNF grammar (root rule `root`), as llama-server takes it; excludes response_format other than text"
     }
    }
   },
   "ChatCompletionRequest": {
    "allOf": [
     {
      "$ref": "#/components/schemas/GenerationFields"
     },
     {
      "type": "object",
      "required": [
       "messages"
      ],
      "properties": {
       "messages": {
        "type": "array",
        "minItems": 1,
        "items": {
         "$ref": "#/components/schemas/Message"
        },
        "description": "The conversation: at least one user message, and the last message must be the user's or a tool's result",
        "contains": {
         "type": "object",
         "required": [
          "role"
         ],
         "properties": {
          "role": {
           "const": "user"
          }
         }
        }
       },
       "tools": {
        "type": "array",
        "description": "Functions the model may call; each call is grammar-constrained, so its arguments always parse and match the schema (the json_schema subset of response_format)",
        "items": {
         "type": "object",
         "required": [
          "type",
          "function"
         ],
         "properties": {
          "type": {
           "const": "function"
          },
          "function": {
           "type": "object",
           "required": [
            "name"
           ],
           "properties": {
            "name": {
             "type": "string",
             "pattern": "^[A-Za-z0-9_-]{1,64}$"
            },
            "description": {
             "type": "string"
            },
            "parameters": {
             "type": "object"
            },
            "strict": {
             "type": "boolean",
             "description": "Accepted; the arguments always keep to the schema"
            }
           }
          }
         }
        }
       },
       "tool_choice": {
        "oneOf": [
         {
          "enum": [
           "auto",
           "none",
           "required"
          ]
         },
         {
          "type": "object",
          "required": [
           "type",
           "function"
          ],
          "properties": {
           "type": {
            "const": "function"
           },
           "function": {
            "type": "object",
            "required": [
             "name"
            ],
            "properties": {
             "name": {
              "type": "string"
             }
            }
           }
          }
         }
        ],
        "description": "auto (the default) lets the model answer in text or call; none forbids calls; required, or a named function, makes it call"
       },
       "parallel_tool_calls": {
        "type": "boolean",
        "description": "Whether one answer may make several calls (default false)"
       }
      }
     }
    ]
   },
   "CompletionRequest": {
    "allOf": [
     {
      "$ref": "#/components/schemas/GenerationFields"
     },
     {
      "type": "object",
      "required": [
       "prompt"
      ],
      "properties": {
       "prompt": {
        "oneOf": [
         {
          "type": "string"
         },
         {
          "type": "array",
          "items": {
           "type": "string"
          },
          "minItems": 1,
          "maxItems": 1
         }
        ],
        "description": "One prompt, used verbatim (a one-string array is accepted)"
       }
      }
     }
    ]
   },
   "Usage": {
    "type": "object",
    "properties": {
     "prompt_tokens": {
      "type": "integer"
     },
     "completion_tokens": {
      "type": "integer"
     },
     "total_tokens": {
      "type": "integer"
     },
     "prompt_tokens_details": {
      "type": "object",
      "properties": {
       "cached_tokens": {
        "type": "integer"
       }
      }
     }
    }
   },
   "Timings": {
    "type": "object",
    "description": "RunAnywhere's timings, like llama-server's",
    "properties": {
     "prompt_n": {
      "type": "number"
     },
     "cache_n": {
      "type": "number"
     },
     "prompt_ms": {
      "type": "number"
     },
     "prompt_per_second": {
      "type": "number"
     },
     "predicted_n": {
      "type": "number"
     },
     "predicted_ms": {
      "type": "number"
     },
     "predicted_per_second": {
      "type": "number"
     },
     "time_to_first_token_ms": {
      "type": "number"
     },
     "total_ms": {
      "type": "number"
     }
    }
   },
   "ChatCompletion": {
    "type": "object",
    "properties": {
     "id": {
      "type": "string"
     },
     "object": {
      "const": "chat.completion"
     },
     "created": {
      "type": "integer"
     },
     "model": {
      "type": "string"
     },
     "choices": {
      "type": "array",
      "items": {
       "type": "object",
       "properties": {
        "index": {
         "type": "integer"
        },
        "finish_reason": {
         "enum": [
          "stop",
          "length",
          "tool_calls"
         ]
        },
        "message": {
         "type": "object",
         "properties": {
          "role": {
           "const": "assistant"
          },
          "content": {
           "type": [
            "string",
            "null"
           ],
           "description": "null beside tool calls"
          },
          "reasoning_content": {
           "type": "string"
          },
          "tool_calls": {
           "type": "array",
           "items": {
            "$ref": "#/components/schemas/ToolCall"
           }
          }
         }
        }
       }
      }
     },
     "usage": {
      "$ref": "#/components/schemas/Usage"
     },
     "timings": {
      "$ref": "#/components/schemas/Timings"
     }
    }
   },
   "Completion": {
    "type": "object",
    "properties": {
     "id": {
      "type": "string"
     },
     "object": {
      "const": "text_completion"
     },
     "created": {
      "type": "integer"
     },
     "model": {
      "type": "string"
     },
     "choices": {
      "type": "array",
      "items": {
       "type": "object",
       "properties": {
        "index": {
         "type": "integer"
        },
        "text": {
         "type": "string"
        },
        "finish_reason": {
         "enum": [
          "stop",
          "length",
          null
         ],
         "description": "null in stream chunks before the last"
        },
        "logprobs": {
         "type": "null"
        }
       }
      },
      "description": "Empty in the closing usage chunk of a stream"
     },
     "usage": {
      "$ref": "#/components/schemas/Usage"
     },
     "timings": {
      "$ref": "#/components/schemas/Timings"
     }
    }
   },
   "ResponseContentPart": {
    "oneOf": [
     {
      "type": "object",
      "required": [
       "type",
       "text"
      ],
      "properties": {
       "type": {
        "enum": [
         "input_text",
         "output_text"
        ]
       },
       "text": {
        "type": "string"
       },
       "annotations": {
        "type": "array",
        "items": {}
       }
      }
     },
     {
      "type": "object",
      "required": [
       "type",
       "image_url"
      ],
      "properties": {
       "type": {
        "const": "input_image"
       },
       "image_url": {
        "type": "string",
        "pattern": "^data:",
        "description": "A data: URL; this server fetches no images"
       },
       "detail": {
        "type": "string"
       }
      }
     }
    ],
    "description": "A part of a message: input_text, output_text (with annotations, none here) or input_image"
   },
   "ResponseMessageItem": {
    "type": "object",
    "required": [
     "role",
     "content"
    ],
    "properties": {
     "type": {
      "const": "message"
     },
     "id": {
      "type": "string"
     },
     "status": {
      "enum": [
       "in_progress",
       "completed",
       "incomplete"
      ]
     },
     "role": {
      "enum": [
       "user",
       "system",
       "developer",
       "assistant"
      ]
     },
     "content": {
      "oneOf": [
       {
        "type": "string"
       },
       {
        "type": "array",
        "items": {
         "$ref": "#/components/schemas/ResponseContentPart"
        }
       }
      ],
      "description": "Text, or parts"
     }
    },
    "description": "A message; in input, type may be left out. system and developer messages join the instructions"
   },
   "ResponseFunctionCallItem": {
    "type": "object",
    "required": [
     "type",
     "call_id",
     "name",
     "arguments"
    ],
    "properties": {
     "type": {
      "const": "function_call"
     },
     "id": {
      "type": "string"
     },
     "call_id": {
      "type": "string"
     },
     "name": {
      "type": "string"
     },
     "arguments": {
      "type": "string",
      "description": "The arguments, a JSON object as text"
     },
     "status": {
      "enum": [
       "in_progress",
       "completed",
       "incomplete"
      ]
     }
    },
    "description": "A call of a function tool by the model"
   },
   "ResponseFunctionCallOutputItem": {
    "type": "object",
    "required": [
     "type",
     "call_id",
     "output"
    ],
    "properties": {
     "type": {
      "const": "function_call_output"
     },
     "id": {
      "type": "string"
     },
     "call_id": {
      "type": "string"
     },
     "output": {
      "oneOf": [
       {
        "type": "string"
       },
       {
        "type": "array",
        "items": {
         "$ref": "#/components/schemas/ResponseContentPart"
        }
       }
      ]
     },
     "status": {
      "type": "string"
     }
    },
    "description": "The result of a function call, sent back in input"
   },
   "ResponseReasoningItem": {
    "type": "object",
    "required": [
     "type",
     "summary"
    ],
    "properties": {
     "type": {
      "const": "reasoning"
     },
     "id": {
      "type": "string"
     },
     "summary": {
      "type": "array",
      "items": {}
     },
     "content": {
      "type": "array",
      "items": {
       "type": "object",
       "required": [
        "type",
        "text"
       ],
       "properties": {
        "type": {
         "const": "reasoning_text"
        },
        "text": {
         "type": "string"
        }
       }
      }
     },
     "status": {
      "enum": [
       "in_progress",
       "completed",
       "incomplete"
      ]
     }
    },
    "description": "A thinking model's reasoning as reasoning_text (no summary is made); sent back in input, it is not shown to the model again"
   },
   "ResponseInputItem": {
    "oneOf": [
     {
      "$ref": "#/components/schemas/ResponseMessageItem"
     },
     {
      "$ref": "#/components/schemas/ResponseFunctionCallItem"
     },
     {
      "$ref": "#/components/schemas/ResponseFunctionCallOutputItem"
     },
     {
      "$ref": "#/components/schemas/ResponseReasoningItem"
     }
    ]
   },
   "ResponseOutputItem": {
    "oneOf": [
     {
      "$ref": "#/components/schemas/ResponseMessageItem"
     },
     {
      "$ref": "#/components/schemas/ResponseFunctionCallItem"
     },
     {
      "$ref": "#/components/schemas/ResponseReasoningItem"
     }
    ]
   },
   "ResponseRequest": {
    "type": "object",
    "required": [
     "model",
     "input"
    ],
    "properties": {
     "model": {
      "type": "string"
     },
     "input": {
      "oneOf": [
       {
        "type": "string"
       },
       {
        "type": "array",
        "items": {
         "$ref": "#/components/schemas/ResponseInputItem"
        }
       }
      ],
      "description": "Text (one user message) or items; with the earlier turns, it must end with a user message or a function_call_output"
     },
     "instructions": {
      "type": [
       "string",
       "null"
      ],
      "description": "The system prompt of this turn (not carried to the next by previous_response_id)"
     },
     "tools": {
      "type": "array",
      "description": "Function tools; each call is grammar-constrained, so its arguments always parse and match the schema",
      "items": {
       "type": "object",
       "required": [
        "type",
        "name"
       ],
       "properties": {
        "type": {
         "const": "function"
        },
        "name": {
         "type": "string",
         "pattern": "^[A-Za-z0-9_-]{1,64}$"
        },
        "description": {
         "type": "string"
        },
        "parameters": {
         "type": "object"
        },
        "strict": {
         "type": "boolean"
        }
       }
      }
     },
     "tool_choice": {
      "oneOf": [
       {
        "enum": [
         "auto",
         "none",
         "required"
        ]
       },
       {
        "type": "object",
        "required": [
         "type",
         "name"
        ],
        "properties": {
         "type": {
          "const": "function"
         },
         "name": {
          "type": "string"
         }
        }
       }
      ]
     },
     "parallel_tool_calls": {
      "type": "boolean",
      "description": "Whether one answer may make several calls (default false)"
     },
     "text": {
      "type": "object",
      "required": [],
      "properties": {
       "format": {
        "oneOf": [
         {
          "type": "object",
          "required": [
           "type"
          ],
          "properties": {
           "type": {
            "enum": [
             "text",
             "json_object"
            ]
           }
          }
         },
         {
          "type": "object",
          "required": [
           "type",
           "schema"
          ],
          "properties": {
           "type": {
            "const": "json_schema"
           },
           "name": {
            "type": "string"
           },
           "schema": {
            "type": "object"
           },
           "description": {
            "type": "string"
           },
           "strict": {
            "type": "boolean"
           }
          }
         }
        ]
       }
      },
      "description": "text.format json_schema constrains the output to the schema (the supported subset; others are a 400 naming text.format.schema)"
     },
     "max_output_tokens": {
      "type": [
       "integer",
       "null"
      ],
      "minimum": 1,
      "description": "At most this many tokens; reaching it ends the response incomplete"
     },
     "temperature": {
      "type": [
       "number",
       "null"
      ],
      "minimum": 0
     },
     "top_p": {
      "type": [
       "number",
       "null"
      ],
      "minimum": 0,
      "maximum": 1
     },
     "reasoning": {
      "type": [
       "object",
       "null"
      ],
      "description": "Accepted and echoed; a thinking model's reasoning comes as reasoning items"
     },
     "previous_response_id": {
      "type": [
       "string",
       "null"
      ],
      "description": "Continue a stored response: its input and output items come before this input"
     },
     "store": {
      "type": "boolean",
      "description": "Keep the response for GET and previous_response_id (default true)"
     },
     "stream": {
      "type": "boolean",
      "description": "Answer with the semantic stream events"
     },
     "metadata": {
      "type": "object",
      "additionalProperties": {
       "type": "string"
      }
     }
    }
   },
   "ResponseUsage": {
    "type": "object",
    "required": [
     "input_tokens",
     "input_tokens_details",
     "output_tokens",
     "output_tokens_details",
     "total_tokens"
    ],
    "properties": {
     "input_tokens": {
      "type": "integer"
     },
     "input_tokens_details": {
      "type": "object",
      "required": [
       "cached_tokens"
      ],
      "properties": {
       "cached_tokens": {
        "type": "integer"
       }
      }
     },
     "output_tokens": {
      "type": "integer"
     },
     "output_tokens_details": {
      "type": "object",
      "required": [
       "reasoning_tokens"
      ],
      "properties": {
       "reasoning_tokens": {
        "type": "integer"
       }
      }
     },
     "total_tokens": {
      "type": "integer"
     }
    }
   },
   "Response": {
    "type": "object",
    "required": [
     "id",
     "object",
     "created_at",
     "status",
     "model",
     "output",
     "parallel_tool_calls",
     "store",
     "tool_choice",
     "tools",
     "text",
     "metadata"
    ],
    "properties": {
     "id": {
      "type": "string"
     },
     "object": {
      "const": "response"
     },
     "created_at": {
      "type": "integer"
     },
     "status": {
      "enum": [
       "in_progress",
       "completed",
       "incomplete",
       "failed"
      ]
     },
     "completed_at": {
      "type": "integer"
     },
     "error": {
      "oneOf": [
       {
        "type": "null"
       },
       {
        "type": "object",
        "required": [
         "code",
         "message"
        ],
        "properties": {
         "code": {
          "type": "string"
         },
         "message": {
          "type": "string"
         }
        }
       }
      ]
     },
     "incomplete_details": {
      "oneOf": [
       {
        "type": "null"
       },
       {
        "type": "object",
        "required": [
         "reason"
        ],
        "properties": {
         "reason": {
          "const": "max_output_tokens"
         }
        }
       }
      ]
     },
     "instructions": {
      "type": [
       "string",
       "null"
      ]
     },
     "max_output_tokens": {
      "type": [
       "integer",
       "null"
      ]
     },
     "model": {
      "type": "string"
     },
     "output": {
      "type": "array",
      "items": {
       "$ref": "#/components/schemas/ResponseOutputItem"
      }
     },
     "parallel_tool_calls": {
      "type": "boolean"
     },
     "previous_response_id": {
      "type": [
       "string",
       "null"
      ]
     },
     "reasoning": {
      "type": [
       "object",
       "null"
      ]
     },
     "store": {
      "type": "boolean"
     },
     "temperature": {
      "type": [
       "number",
       "null"
      ]
     },
     "top_p": {
      "type": [
       "number",
       "null"
      ]
     },
     "text": {
      "type": "object"
     },
     "tool_choice": {},
     "tools": {
      "type": "array",
      "items": {
       "type": "object"
      }
     },
     "truncation": {
      "const": "disabled"
     },
     "usage": {
      "oneOf": [
       {
        "type": "null"
       },
       {
        "$ref": "#/components/schemas/ResponseUsage"
       }
      ]
     },
     "metadata": {
      "type": "object",
      "additionalProperties": {
       "type": "string"
      }
     }
    },
    "description": "A response: the request's settings echoed, the output items and usage; in_progress only in stream events"
   },
   "ResponseDeleted": {
    "type": "object",
    "required": [
     "id",
     "object",
     "deleted"
    ],
    "properties": {
     "id": {
      "type": "string"
     },
     "object": {
      "const": "response"
     },
     "deleted": {
      "const": true
     }
    }
   },
   "ResponseInputItemList": {
    "type": "object",
    "required": [
     "object",
     "data",
     "has_more"
    ],
    "properties": {
     "object": {
      "const": "list"
     },
     "data": {
      "type": "array",
      "items": {
       "$ref": "#/components/schemas/ResponseInputItem"
      }
     },
     "first_id": {
      "type": [
       "string",
       "null"
      ]
     },
     "last_id": {
      "type": [
       "string",
       "null"
      ]
     },
     "has_more": {
      "type": "boolean"
     }
    }
   },
   "ResponseCreatedEvent": {
    "type": "object",
    "required": [
     "type",
     "sequence_number",
     "response"
    ],
    "properties": {
     "type": {
      "const": "response.created"
     },
     "sequence_number": {
      "type": "integer"
     },
     "response": {
      "$ref": "#/components/schemas/Response"
     }
    },
    "description": "First: the response in_progress, no output yet"
   },
   "ResponseInProgressEvent": {
    "type": "object",
    "required": [
     "type",
     "sequence_number",
     "response"
    ],
    "properties": {
     "type": {
      "const": "response.in_progress"
     },
     "sequence_number": {
      "type": "integer"
     },
     "response": {
      "$ref": "#/components/schemas/Response"
     }
    },
    "description": "The response is being generated"
   },
   "ResponseCompletedEvent": {
    "type": "object",
    "required": [
     "type",
     "sequence_number",
     "response"
    ],
    "properties": {
     "type": {
      "const": "response.completed"
     },
     "sequence_number": {
      "type": "integer"
     },
     "response": {
      "$ref": "#/components/schemas/Response"
     }
    },
    "description": "Last: the finished response"
   },
   "ResponseIncompleteEvent": {
    "type": "object",
    "required": [
     "type",
     "sequence_number",
     "response"
    ],
    "properties": {
     "type": {
      "const": "response.incomplete"
     },
     "sequence_number": {
      "type": "integer"
     },
     "response": {
      "$ref": "#/components/schemas/Response"
     }
    },
    "description": "Last, when max_output_tokens was reached: the response with incomplete_details"
   },
   "ResponseFailedEvent": {
    "type": "object",
    "required": [
     "type",
     "sequence_number",
     "response"
    ],
    "properties": {
     "type": {
      "const": "response.failed"
     },
     "sequence_number": {
      "type": "integer"
     },
     "response": {
      "$ref": "#/components/schemas/Response"
     }
    },
    "description": "Last, when the generation failed: the response with error"
   },
   "ResponseOutputItemAddedEvent": {
    "type": "object",
    "required": [
     "type",
     "sequence_number",
     "output_index",
     "item"
    ],
    "properties": {
     "type": {
      "const": "response.output_item.added"
     },
     "sequence_number": {
      "type": "integer"
     },
     "output_index": {
      "type": "integer"
     },
     "item": {
      "$ref": "#/components/schemas/ResponseOutputItem"
     }
    },
    "description": "An output item begins (in_progress)"
   },
   "ResponseOutputItemDoneEvent": {
    "type": "object",
    "required": [
     "type",
     "sequence_number",
     "output_index",
     "item"
    ],
    "properties": {
     "type": {
      "const": "response.output_item.done"
     },
     "sequence_number": {
      "type": "integer"
     },
     "output_index": {
      "type": "integer"
     },
     "item": {
      "$ref": "#/components/schemas/ResponseOutputItem"
     }
    },
    "description": "An output item is finished"
   },
   "ResponseContentPartAddedEvent": {
    "type": "object",
    "required": [
     "type",
     "sequence_number",
     "item_id",
     "output_index",
     "content_index",
     "part"
    ],
    "properties": {
     "type": {
      "const": "response.content_part.added"
     },
     "sequence_number": {
      "type": "integer"
     },
     "item_id": {
      "type": "string"
     },
     "output_index": {
      "type": "integer"
     },
     "content_index": {
      "type": "integer"
     },
     "part": {
      "$ref": "#/components/schemas/ResponseContentPart"
     }
    },
    "description": "A message's output_text part begins"
   },
   "ResponseContentPartDoneEvent": {
    "type": "object",
    "required": [
     "type",
     "sequence_number",
     "item_id",
     "output_index",
     "content_index",
     "part"
    ],
    "properties": {
     "type": {
      "const": "response.content_part.done"
     },
     "sequence_number": {
      "type": "integer"
     },
     "item_id": {
      "type": "string"
     },
     "output_index": {
      "type": "integer"
     },
     "content_index": {
      "type": "integer"
     },
     "part": {
      "$ref": "#/components/schemas/ResponseContentPart"
     }
    },
    "description": "A message's output_text part is finished"
   },
   "ResponseOutputTextDeltaEvent": {
    "type": "object",
    "required": [
     "type",
     "sequence_number",
     "item_id",
     "output_index",
     "content_index",
     "delta"
    ],
    "properties": {
     "type": {
      "const": "response.output_text.delta"
     },
     "sequence_number": {
      "type": "integer"
     },
     "item_id": {
      "type": "string"
     },
     "output_index": {
      "type": "integer"
     },
     "content_index": {
      "type": "integer"
     },
     "delta": {
      "type": "string"
     },
     "logprobs": {
      "type": "array",
      "items": {}
     }
    },
    "description": "A piece of the answer's text"
   },
   "ResponseOutputTextDoneEvent": {
    "type": "object",
    "required": [
     "type",
     "sequence_number",
     "item_id",
     "output_index",
     "content_index",
     "text"
    ],
    "properties": {
     "type": {
      "const": "response.output_text.done"
     },
     "sequence_number": {
      "type": "integer"
     },
     "item_id": {
      "type": "string"
     },
     "output_index": {
      "type": "integer"
     },
     "content_index": {
      "type": "integer"
     },
     "text": {
      "type": "string"
     },
     "logprobs": {
      "type": "array",
      "items": {}
     }
    },
    "description": "The answer's whole text"
   },
   "ResponseReasoningTextDeltaEvent": {
    "type": "object",
    "required": [
     "type",
     "sequence_number",
     "item_id",
     "output_index",
     "content_index",
     "delta"
    ],
    "properties": {
     "type": {
      "const": "response.reasoning_text.delta"
     },
     "sequence_number": {
      "type": "integer"
     },
     "item_id": {
      "type": "string"
     },
     "output_index": {
      "type": "integer"
     },
     "content_index": {
      "type": "integer"
     },
     "delta": {
      "type": "string"
     }
    },
    "description": "A piece of a thinking model's reasoning"
   },
   "ResponseReasoningTextDoneEvent": {
    "type": "object",
    "required": [
     "type",
     "sequence_number",
     "item_id",
     "output_index",
     "content_index",
     "text"
    ],
    "properties": {
     "type": {
      "const": "response.reasoning_text.done"
     },
     "sequence_number": {
      "type": "integer"
     },
     "item_id": {
      "type": "string"
     },
     "output_index": {
      "type": "integer"
     },
     "content_index": {
      "type": "integer"
     },
     "text": {
      "type": "string"
     }
    },
    "description": "The whole reasoning"
   },
   "ResponseFunctionCallArgumentsDeltaEvent": {
    "type": "object",
    "required": [
     "type",
     "sequence_number",
     "item_id",
     "output_index",
     "delta"
    ],
    "properties": {
     "type": {
      "const": "response.function_call_arguments.delta"
     },
     "sequence_number": {
      "type": "integer"
     },
     "item_id": {
      "type": "string"
     },
     "output_index": {
      "type": "integer"
     },
     "delta": {
      "type": "string"
     }
    },
    "description": "A function call's arguments (all of them: a call is complete when it is streamed)"
   },
   "ResponseFunctionCallArgumentsDoneEvent": {
    "type": "object",
    "required": [
     "type",
     "sequence_number",
     "item_id",
     "output_index",
     "arguments"
    ],
    "properties": {
     "type": {
      "const": "response.function_call_arguments.done"
     },
     "sequence_number": {
      "type": "integer"
     },
     "item_id": {
      "type": "string"
     },
     "output_index": {
      "type": "integer"
     },
     "arguments": {
      "type": "string"
     },
     "name": {
      "type": "string"
     }
    },
    "description": "A function call's whole arguments"
   },
   "ResponseErrorEvent": {
    "type": "object",
    "required": [
     "type",
     "sequence_number",
     "code",
     "message"
    ],
    "properties": {
     "type": {
      "const": "error"
     },
     "sequence_number": {
      "type": "integer"
     },
     "code": {
      "type": "string"
     },
     "message": {
      "type": "string"
     },
     "param": {
      "type": [
       "string",
       "null"
      ]
     }
    },
    "description": "The generation failed; response.failed follows"
   },
   "ResponseStreamEvent": {
    "oneOf": [
     {
      "$ref": "#/components/schemas/ResponseCreatedEvent"
     },
     {
      "$ref": "#/components/schemas/ResponseInProgressEvent"
     },
     {
      "$ref": "#/components/schemas/ResponseCompletedEvent"
     },
     {
      "$ref": "#/components/schemas/ResponseIncompleteEvent"
     },
     {
      "$ref": "#/components/schemas/ResponseFailedEvent"
     },
     {
      "$ref": "#/components/schemas/ResponseOutputItemAddedEvent"
     },
     {
      "$ref": "#/components/schemas/ResponseOutputItemDoneEvent"
     },
     {
      "$ref": "#/components/schemas/ResponseContentPartAddedEvent"
     },
     {
      "$ref": "#/components/schemas/ResponseContentPartDoneEvent"
     },
     {
      "$ref": "#/components/schemas/ResponseOutputTextDeltaEvent"
     },
     {
      "$ref": "#/components/schemas/ResponseOutputTextDoneEvent"
     },
     {
      "$ref": "#/components/schemas/ResponseReasoningTextDeltaEvent"
     },
     {
      "$ref": "#/components/schemas/ResponseReasoningTextDoneEvent"
     },
     {
      "$ref": "#/components/schemas/ResponseFunctionCallArgumentsDeltaEvent"
     },
     {
      "$ref": "#/components/schemas/ResponseFunctionCallArgumentsDoneEvent"
     },
     {
      "$ref": "#/components/schemas/ResponseErrorEvent"
     }
    ],
    "description": "One semantic event of a streamed response, sent with the event name of its type"
   },
   "SpeechRequest": {
    "type": "object",
    "required": [
     "model",
     "input"
    ],
    "properties": {
     "model": {
      "type": "string",
      "minLength": 1
     },
     "input": {
      "type": "string",
      "maxLength": 10000
     },
     "voice": {
      "type": "string",
      "description": "OpenAI's voice names (alloy, nova…) select the model's own voice; any other is passed to the engine (eSpeak NG: en, de, fr…)"
     },
     "speed": {
      "type": "number",
      "minimum": 0.25,
      "maximum": 4
     },
     "response_format": {
      "enum": [
       "wav",
       "pcm"
      ]
     }
    }
   },
   "TranscriptionForm": {
    "type": "object",
    "required": [
     "file",
     "model"
    ],
    "properties": {
     "file": {
      "type": "string",
      "format": "binary"
     },
     "model": {
      "type": "string",
      "minLength": 1,
      "description": "A speech-to-text model id; whisper-1 means the default one"
     },
     "language": {
      "type": "string"
     },
     "prompt": {
      "type": "string"
     },
     "temperature": {
      "type": "number",
      "minimum": 0,
      "maximum": 1
     },
     "response_format": {
      "enum": [
       "json",
       "text",
       "verbose_json",
       "srt",
       "vtt"
      ]
     },
     "timestamp_granularities[]": {
      "type": "array",
      "items": {
       "const": "segment"
      }
     }
    }
   },
   "Transcription": {
    "type": "object",
    "required": [
     "text"
    ],
    "properties": {
     "text": {
      "type": "string"
     },
     "task": {
      "const": "transcribe"
     },
     "language": {
      "type": "string"
     },
     "duration": {
      "type": "number"
     },
     "segments": {
      "type": "array",
      "items": {
       "type": "object",
       "properties": {
        "id": {
         "type": "integer"
        },
        "seek": {
         "type": "integer"
        },
        "start": {
         "type": "number"
        },
        "end": {
         "type": "number"
        },
        "text": {
         "type": "string"
        },
        "temperature": {
         "type": "number"
        },
        "avg_logprob": {
         "type": "number"
        }
       }
      }
     },
     "usage": {
      "type": "object",
      "properties": {
       "type": {
        "const": "duration"
       },
       "seconds": {
        "type": "integer"
       }
      }
     }
    }
   },
   "LoadedModel": {
    "type": "object",
    "properties": {
     "modelId": {
      "type": "string"
     },
     "state": {
      "$ref": "#/components/schemas/LifecycleState"
     },
     "memoryBytes": {
      "type": "integer"
     },
     "deviceMemoryBytes": {
      "type": "integer"
     },
     "activeRequests": {
      "type": "integer"
     },
     "queuedRequests": {
      "type": "integer"
     },
     "keepAliveSeconds": {
      "type": [
       "number",
       "null"
      ]
     },
     "expiresAt": {
      "type": [
       "string",
       "null"
      ],
      "format": "date-time"
     },
     "error": {
      "type": [
       "string",
       "null"
      ]
     }
    }
   },
   "LifecycleState": {
    "type": "string",
    "enum": [
     "notLoaded",
     "loading",
     "loaded",
     "unloading",
     "failed"
    ],
    "description": "The SDK's ModelLifecycleState"
   },
   "ModelInfo": {
    "type": "object",
    "description": "The SDK's ModelInfo, as the specification shapes it",
    "required": [
     "id",
     "name",
     "category",
     "format",
     "framework",
     "artifactType",
     "supportsThinking",
     "source",
     "createdAt",
     "updatedAt"
    ],
    "properties": {
     "id": {
      "type": "string"
     },
     "name": {
      "type": "string"
     },
     "category": {
      "$ref": "#/components/schemas/ModelCategory"
     },
     "format": {
      "$ref": "#/components/schemas/ModelFormat"
     },
     "framework": {
      "$ref": "#/components/schemas/InferenceFramework"
     },
     "downloadURL": {
      "type": "string"
     },
     "localPath": {
      "type": "string",
      "description": "A file: URL"
     },
     "artifactType": {
      "type": "object",
      "required": [
       "type"
      ],
      "properties": {
       "type": {
        "enum": [
         "singleFile",
         "archive",
         "multiFile"
        ]
       },
       "archiveType": {
        "enum": [
         "zip",
         "tar.gz",
         "tar.bz2",
         "tar.xz"
        ]
       },
       "files": {
        "type": "array",
        "items": {
         "type": "object",
         "required": [
          "url",
          "filename"
         ],
         "properties": {
          "url": {
           "type": "string"
          },
          "filename": {
           "type": "string"
          },
          "sha256": {
           "type": "string"
          }
         }
        }
       }
      }
     },
     "downloadSize": {
      "type": "integer"
     },
     "contextLength": {
      "type": "integer"
     },
     "supportsThinking": {
      "type": "boolean"
     },
     "thinkingPattern": {
      "type": "object",
      "required": [
       "openingTag",
       "closingTag"
      ],
      "properties": {
       "openingTag": {
        "type": "string"
       },
       "closingTag": {
        "type": "string"
       }
      }
     },
     "description": {
      "type": "string"
     },
     "source": {
      "enum": [
       "remote",
       "local"
      ],
      "description": "The built-in catalog (remote) or the user (local)"
     },
     "createdAt": {
      "type": "string",
      "format": "date-time"
     },
     "updatedAt": {
      "type": "string",
      "format": "date-time"
     },
     "license": {
      "type": "string"
     },
     "sha256": {
      "type": "string"
     },
     "toolCallFormat": {
      "enum": [
       "hermes",
       "json"
      ]
     }
    }
   },
   "CatalogEntry": {
    "type": "object",
    "required": [
     "model",
     "installed",
     "sizeOnDiskBytes"
    ],
    "properties": {
     "model": {
      "$ref": "#/components/schemas/ModelInfo"
     },
     "installed": {
      "type": "boolean"
     },
     "sizeOnDiskBytes": {
      "type": "integer"
     },
     "state": {
      "$ref": "#/components/schemas/LifecycleState"
     }
    }
   },
   "AddModelRequest": {
    "type": "object",
    "required": [
     "url",
     "category"
    ],
    "properties": {
     "url": {
      "type": "string",
      "pattern": "^(https?://|hf\\.co/|huggingface\\.co/)",
      "description": "An http(s) URL of the model's file or archive, or a Hugging Face reference in ollama's form, hf.co/OWNER/REPO:QUANT (without :QUANT, Q4_K_M or the first GGUF file): the repository's GGUF file whose name carries QUANT, registered as a language model with its size and sha256 (framework, id and sha256 do not apply to a reference)"
     },
     "category": {
      "$ref": "#/components/schemas/ModelCategory"
     },
     "framework": {
      "$ref": "#/components/schemas/InferenceFramework"
     },
     "id": {
      "type": "string",
      "pattern": "^(?!.*\\.\\.)[A-Za-z0-9_][A-Za-z0-9._-]{0,127}$",
      "description": "1 to 128 letters, digits, '.', '_' and '-', not starting with '.' or '-', no '..' (default: from the file name)"
     },
     "name": {
      "type": "string"
     },
     "sha256": {
      "type": "string",
      "pattern": "^[0-9a-fA-F]{64}$"
     },
     "supportsThinking": {
      "type": "boolean"
     }
    },
    "description": "A model to add from a URL. /api/models/check answers every problem by field; POST /api/models refuses the first (400, 409 for an id in use)"
   },
   "PullProgress": {
    "type": "object",
    "description": "The data of each `progress` event of a pull",
    "properties": {
     "modelId": {
      "type": "string"
     },
     "state": {
      "enum": [
       "downloading",
       "verifying",
       "extracting",
       "completed"
      ]
     },
     "bytesDownloaded": {
      "type": "integer"
     },
     "totalBytes": {
      "type": [
       "integer",
       "null"
      ]
     },
     "fraction": {
      "type": "number"
     },
     "bytesPerSecond": {
      "type": [
       "number",
       "null"
      ]
     },
     "secondsRemaining": {
      "type": [
       "number",
       "null"
      ]
     }
    }
   },
   "StorageInfo": {
    "type": "object",
    "properties": {
     "models": {
      "type": "array",
      "items": {
       "type": "object",
       "properties": {
        "modelId": {
         "type": "string"
        },
        "name": {
         "type": "string"
        },
        "path": {
         "type": "string"
        },
        "sizeBytes": {
         "type": "integer"
        }
       }
      }
     },
     "totalModelBytes": {
      "type": "integer"
     },
     "freeBytes": {
      "type": [
       "integer",
       "null"
      ]
     },
     "directory": {
      "type": "string"
     }
    }
   },
   "GenerationSettings": {
    "type": "object",
    "description": "The generation defaults",
    "required": [
     "temperature",
     "maxTokens",
     "topP",
     "topK",
     "streaming"
    ],
    "properties": {
     "temperature": {
      "type": "number",
      "minimum": 0,
      "maximum": 2
     },
     "maxTokens": {
      "type": "integer",
      "minimum": 1
     },
     "topP": {
      "type": "number",
      "exclusiveMinimum": 0,
      "maximum": 1
     },
     "topK": {
      "type": "integer",
      "minimum": 0
     },
     "systemPrompt": {
      "type": "string",
      "description": "Absent when none is set"
     },
     "streaming": {
      "type": "boolean"
     },
     "threads": {
      "type": "integer",
      "minimum": 1,
      "maximum": 512,
      "description": "Absent: all cores, at most 4"
     }
    }
   },
   "Environments": {
    "type": "object",
    "properties": {
     "environments": {
      "type": "array",
      "items": {
       "type": "object",
       "properties": {
        "environment": {
         "$ref": "#/components/schemas/SDKEnvironment"
        },
        "isSelected": {
         "type": "boolean"
        },
        "baseURL": {
         "type": [
          "string",
          "null"
         ]
        },
        "maskedAPIKey": {
         "type": [
          "string",
          "null"
         ],
         "description": "Only the last 4 characters shown"
        }
       }
      }
     }
    }
   },
   "EnvironmentChange": {
    "type": "object",
    "required": [
     "environment"
    ],
    "properties": {
     "environment": {
      "$ref": "#/components/schemas/SDKEnvironment"
     },
     "baseURL": {
      "type": "string"
     },
     "apiKey": {
      "type": "string"
     }
    },
    "description": "staging and production need an API key and an http(s) base URL, given or stored before"
   },
   "ConversationSummary": {
    "type": "object",
    "required": [
     "id",
     "title",
     "createdAt",
     "updatedAt",
     "messageCount"
    ],
    "properties": {
     "id": {
      "type": "string"
     },
     "title": {
      "type": "string"
     },
     "createdAt": {
      "type": "string",
      "format": "date-time"
     },
     "updatedAt": {
      "type": "string",
      "format": "date-time"
     },
     "messageCount": {
      "type": "integer"
     },
     "modelName": {
      "type": [
       "string",
       "null"
      ]
     },
     "preview": {
      "type": [
       "string",
       "null"
      ]
     }
    }
   },
   "ChatMessage": {
    "type": "object",
    "required": [
     "id",
     "role",
     "content",
     "timestamp"
    ],
    "properties": {
     "id": {
      "type": "string",
      "format": "uuid"
     },
     "role": {
      "$ref": "#/components/schemas/MessageRole"
     },
     "content": {
      "type": "string"
     },
     "thinkingContent": {
      "type": [
       "string",
       "null"
      ]
     },
     "timestamp": {
      "type": "string",
      "format": "date-time"
     },
     "analytics": {
      "type": "object",
      "description": "MessageAnalytics, as the specification shapes it (time to first token, tokens per second, token counts, status…)"
     },
     "modelInfo": {
      "type": "object",
      "properties": {
       "modelId": {
        "type": "string"
       },
       "modelName": {
        "type": "string"
       },
       "framework": {
        "type": "string",
        "description": "An InferenceFramework raw value, e.g. LlamaCpp"
       }
      }
     },
     "error": {
      "type": [
       "string",
       "null"
      ]
     }
    }
   },
   "Conversation": {
    "type": "object",
    "required": [
     "id",
     "title",
     "createdAt",
     "updatedAt",
     "messages"
    ],
    "properties": {
     "id": {
      "type": "string"
     },
     "title": {
      "type": "string"
     },
     "createdAt": {
      "type": "string",
      "format": "date-time"
     },
     "updatedAt": {
      "type": "string",
      "format": "date-time"
     },
     "messages": {
      "type": "array",
      "items": {
       "$ref": "#/components/schemas/ChatMessage"
      }
     },
     "modelName": {
      "type": [
       "string",
       "null"
      ]
     },
     "frameworkName": {
      "type": [
       "string",
       "null"
      ]
     },
     "analytics": {
      "type": "object",
      "description": "ConversationAnalytics, as the specification shapes it"
     },
     "performanceSummary": {
      "type": "object",
      "description": "PerformanceSummary, as the specification shapes it"
     }
    }
   },
   "Title": {
    "type": "object",
    "properties": {
     "title": {
      "type": "string",
      "description": "Blank: the default title, then the start of the first message"
     }
    }
   },
   "AnswerRequest": {
    "type": "object",
    "required": [
     "model"
    ],
    "description": "What a retry asks for: the model, and options over the saved settings",
    "properties": {
     "model": {
      "type": "string",
      "description": "An installed language model",
      "minLength": 1
     },
     "temperature": {
      "type": "number",
      "minimum": 0,
      "maximum": 2
     },
     "maxTokens": {
      "type": "integer",
      "minimum": 1,
      "maximum": 9223372036854775807
     },
     "topP": {
      "type": "number",
      "exclusiveMinimum": 0,
      "maximum": 1
     },
     "topK": {
      "type": "integer",
      "minimum": 0,
      "maximum": 9223372036854775807
     },
     "seed": {
      "type": "integer",
      "minimum": 0,
      "maximum": 4294967295
     },
     "systemPrompt": {
      "type": "string",
      "description": "\"\" for none"
     }
    }
   },
   "BenchmarkStart": {
    "type": "object",
    "properties": {
     "categories": {
      "type": "array",
      "items": {
       "$ref": "#/components/schemas/BenchmarkCategory"
      }
     },
     "scenarios": {
      "type": "array",
      "items": {
       "type": "string"
      }
     },
     "repetitions": {
      "type": "integer",
      "minimum": 1,
      "maximum": 20
     },
     "threads": {
      "type": "integer",
      "minimum": 1,
      "maximum": 256
     }
    }
   },
   "BenchmarkRun": {
    "type": "object",
    "description": "The benchmark specification's BenchmarkRun: results with their metrics, device, status",
    "required": [
     "id",
     "startedAt",
     "results",
     "status"
    ],
    "properties": {
     "id": {
      "type": "string"
     },
     "startedAt": {
      "type": "string",
      "format": "date-time"
     },
     "completedAt": {
      "type": [
       "string",
       "null"
      ],
      "format": "date-time"
     },
     "results": {
      "type": "array",
      "items": {
       "type": "object"
      }
     },
     "deviceInfo": {
      "type": "object"
     },
     "status": {
      "$ref": "#/components/schemas/BenchmarkRunStatus"
     }
    }
   },
   "ModelSourceCheck": {
    "type": "object",
    "required": [
     "detectedFormat",
     "problems"
    ],
    "properties": {
     "detectedFormat": {
      "allOf": [
       {
        "$ref": "#/components/schemas/ModelFormat"
       }
      ],
      "description": "The format the URL's extension shows"
     },
     "framework": {
      "allOf": [
       {
        "$ref": "#/components/schemas/InferenceFramework"
       }
      ],
      "description": "The framework that would run it"
     },
     "problems": {
      "type": "array",
      "items": {
       "type": "object",
       "required": [
        "field",
        "message",
        "code"
       ],
       "properties": {
        "field": {
         "enum": [
          "url",
          "framework",
          "id",
          "sha256"
         ]
        },
        "message": {
         "type": "string"
        },
        "code": {
         "type": "string"
        }
       }
      }
     },
     "model": {
      "$ref": "#/components/schemas/ModelInfo"
     }
    }
   },
   "GGUFMetadata": {
    "type": "object",
    "required": [
     "version",
     "tensorCount",
     "parameterCount",
     "parameterCountLabel",
     "fileSize",
     "expectedFileSize"
    ],
    "properties": {
     "version": {
      "type": "integer"
     },
     "tensorCount": {
      "type": "integer"
     },
     "architecture": {
      "type": "string"
     },
     "name": {
      "type": "string"
     },
     "parameterCount": {
      "type": "integer"
     },
     "parameterCountLabel": {
      "type": "string"
     },
     "quantization": {
      "type": "string"
     },
     "fileType": {
      "type": "integer"
     },
     "contextLength": {
      "type": "integer"
     },
     "vocabularySize": {
      "type": "integer"
     },
     "license": {
      "type": "string"
     },
     "chatTemplate": {
      "type": "string"
     },
     "fileSize": {
      "type": "integer"
     },
     "expectedFileSize": {
      "type": "integer"
     }
    }
   },
   "SystemInfo": {
    "type": "object",
    "required": [
     "sdkVersion",
     "hostname",
     "hardware",
     "accelerators",
     "frameworks",
     "modalities",
     "categories",
     "modelsDirectory",
     "dataDirectory",
     "defaultModel",
     "defaultModelInstalled"
    ],
    "properties": {
     "sdkVersion": {
      "type": "string"
     },
     "hostname": {
      "type": "string"
     },
     "hardware": {
      "type": "object",
      "description": "CPU model, architecture, cores, SIMD features, memory, GPU"
     },
     "accelerators": {
      "type": "array",
      "description": "The devices the engines can run models on, and backends they cannot use here with why",
      "items": {
       "type": "object",
       "required": [
        "backend",
        "name",
        "description",
        "kind",
        "available",
        "engine",
        "emulated"
       ],
       "properties": {
        "backend": {
         "type": "string"
        },
        "name": {
         "type": "string"
        },
        "description": {
         "type": "string",
         "description": "What the engine says the device is; empty when none"
        },
        "kind": {
         "enum": [
          "cpu",
          "gpu",
          "igpu",
          "accelerator"
         ]
        },
        "memoryBytes": {
         "type": "integer"
        },
        "freeMemoryBytes": {
         "type": "integer"
        },
        "available": {
         "type": "boolean"
        },
        "reason": {
         "type": "string"
        },
        "engine": {
         "type": "string"
        },
        "emulated": {
         "type": "boolean"
        }
       }
      }
     },
     "frameworks": {
      "type": "array",
      "items": {
       "type": "object",
       "required": [
        "framework",
        "displayName",
        "modalities",
        "availability"
       ],
       "properties": {
        "framework": {
         "$ref": "#/components/schemas/InferenceFramework"
        },
        "displayName": {
         "type": "string"
        },
        "modalities": {
         "type": "array",
         "items": {
          "$ref": "#/components/schemas/FrameworkModality"
         }
        },
        "availability": {
         "type": "object",
         "description": "{\"available\": {\"detail\": …}} or {\"unavailable\": {\"reason\": …}}"
        }
       }
      }
     },
     "modalities": {
      "type": "array",
      "items": {
       "type": "object",
       "required": [
        "modality",
        "frameworks"
       ],
       "properties": {
        "modality": {
         "$ref": "#/components/schemas/FrameworkModality"
        },
        "frameworks": {
         "type": "array",
         "items": {
          "$ref": "#/components/schemas/InferenceFramework"
         }
        },
        "reason": {
         "type": "string"
        }
       }
      }
     },
     "categories": {
      "type": "array",
      "items": {
       "type": "object",
       "required": [
        "category",
        "displayName",
        "modality",
        "supportsThinking"
       ],
       "properties": {
        "category": {
         "$ref": "#/components/schemas/ModelCategory"
        },
        "displayName": {
         "type": "string"
        },
        "modality": {
         "$ref": "#/components/schemas/FrameworkModality"
        },
        "supportsThinking": {
         "type": "boolean"
        }
       }
      }
     },
     "modelsDirectory": {
      "type": "string"
     },
     "dataDirectory": {
      "type": "string"
     },
     "defaultModel": {
      "type": "string"
     },
     "defaultModelInstalled": {
      "type": "boolean"
     }
    }
   },
   "ImageGenerationRequest": {
    "type": "object",
    "required": [
     "prompt"
    ],
    "properties": {
     "prompt": {
      "type": "string",
      "maxLength": 2000
     },
     "model": {
      "type": "string",
      "description": "An image-generation model id; by default the first downloaded one"
     },
     "n": {
      "type": "integer",
      "minimum": 1,
      "maximum": 4,
      "description": "Images, drawn one after another"
     },
     "size": {
      "type": "string",
      "pattern": "^(auto|[0-9]+[xX][0-9]+)$",
      "description": "WIDTHxHEIGHT, each a multiple of 8 from 64 to 2048, or auto (512x512)"
     },
     "response_format": {
      "type": "string",
      "enum": [
       "b64_json",
       "url"
      ],
      "description": "url answers with a data: URL; the server keeps no files"
     },
     "quality": {
      "type": "string",
      "description": "Accepted, no effect"
     },
     "style": {
      "type": "string",
      "description": "Accepted, no effect"
     },
     "user": {
      "type": "string",
      "description": "Accepted, no effect"
     },
     "negative_prompt": {
      "type": "string",
      "description": "What the image should not show",
      "maxLength": 2000
     },
     "steps": {
      "type": "integer",
      "minimum": 1,
      "maximum": 150,
      "description": "Denoising steps (default 20)"
     },
     "seed": {
      "type": "integer",
      "minimum": -1,
      "description": "The noise's seed (-1 or absent: random); image i of n uses seed + i",
      "maximum": 9223372036854775807
     },
     "guidance_scale": {
      "type": "number",
      "minimum": 0,
      "maximum": 30,
      "description": "Classifier-free guidance (default 7.5)"
     },
     "sampler": {
      "type": "string",
      "description": "A DiffusionScheduler, in any case; stable-diffusion.cpp has all but dpm++_2m_sde and lms"
     }
    }
   },
   "ImagesResponse": {
    "type": "object",
    "required": [
     "created",
     "data",
     "model"
    ],
    "properties": {
     "created": {
      "type": "integer"
     },
     "model": {
      "type": "string"
     },
     "data": {
      "type": "array",
      "items": {
       "type": "object",
       "required": [
        "revised_prompt",
        "seed"
       ],
       "properties": {
        "b64_json": {
         "type": "string",
         "description": "The PNG, base64"
        },
        "url": {
         "type": "string",
         "description": "The PNG as a data: URL"
        },
        "revised_prompt": {
         "type": "string",
         "description": "The prompt as drawn (unchanged)"
        },
        "seed": {
         "type": "integer",
         "description": "The seed that draws this image again"
        }
       }
      }
     }
    }
   },
   "RerankRequest": {
    "type": "object",
    "required": [
     "query",
     "documents"
    ],
    "properties": {
     "query": {
      "type": "string",
      "minLength": 1,
      "description": "What the documents are ranked against"
     },
     "documents": {
      "type": "array",
      "minItems": 1,
      "maxItems": 1024,
      "description": "The documents: strings, or Jina's objects with a text; none may be empty",
      "items": {
       "oneOf": [
        {
         "type": "string",
         "minLength": 1
        },
        {
         "type": "object",
         "required": [
          "text"
         ],
         "properties": {
          "text": {
           "type": "string",
           "minLength": 1
          }
         }
        }
       ]
      }
     },
     "model": {
      "type": "string",
      "description": "A reranker id; by default the first downloaded reranker. Another kind of model is a 400 (code model_incompatible), an unknown one a 404"
     },
     "top_n": {
      "type": "integer",
      "minimum": 1,
      "description": "How many of the best documents to return (default: all)"
     },
     "return_documents": {
      "type": "boolean",
      "description": "Give each result its document as {text} (default false, as llama.cpp's server answers)"
     },
     "truncate": {
      "type": "boolean",
      "description": "RunAnywhere's own: shorten a document whose pair with the query is longer than the model reads, keeping its start, instead of refusing it (default false)"
     },
     "keep_alive": {
      "$ref": "#/components/schemas/KeepAlive"
     }
    }
   },
   "RerankList": {
    "type": "object",
    "required": [
     "object",
     "model",
     "results",
     "usage"
    ],
    "properties": {
     "object": {
      "const": "list"
     },
     "model": {
      "type": "string",
      "description": "The reranker that scored the documents"
     },
     "results": {
      "type": "array",
      "description": "Best first (equal scores in the order given), at most top_n",
      "items": {
       "type": "object",
       "required": [
        "index",
        "relevance_score"
       ],
       "properties": {
        "index": {
         "type": "integer",
         "minimum": 0,
         "description": "The document's place in documents"
        },
        "relevance_score": {
         "type": "number",
         "description": "The model's raw score (a logit for BERT-style cross-encoders, not a probability): higher is more relevant"
        },
        "document": {
         "type": "object",
         "required": [
          "text"
         ],
         "properties": {
          "text": {
           "type": "string"
          }
         },
         "description": "With return_documents"
        }
       }
      }
     },
     "usage": {
      "type": "object",
      "required": [
       "prompt_tokens",
       "total_tokens"
      ],
      "properties": {
       "prompt_tokens": {
        "type": "integer",
        "minimum": 0,
        "description": "The tokens of every query-document pair scored, the model's special tokens included"
       },
       "total_tokens": {
        "type": "integer",
        "minimum": 0
       }
      }
     }
    }
   },
   "EmbeddingRequest": {
    "type": "object",
    "required": [
     "input"
    ],
    "properties": {
     "input": {
      "description": "A text, or up to 2048 texts; none may be empty",
      "oneOf": [
       {
        "type": "string",
        "minLength": 1
       },
       {
        "type": "array",
        "minItems": 1,
        "maxItems": 2048,
        "items": {
         "type": "string",
         "minLength": 1
        }
       }
      ]
     },
     "model": {
      "type": "string",
      "description": "An embedding model id; by default all-minilm-l6-v2. Another kind of model is a 400 (code model_incompatible), an unknown one a 404"
     },
     "encoding_format": {
      "type": "string",
      "enum": [
       "float",
       "base64"
      ],
      "description": "float (the default): numbers; base64: each vector's float32 values, little-endian, in base64"
     },
     "dimensions": {
      "type": "integer",
      "minimum": 1,
      "description": "Accepted only when it is the model's own (all-minilm-l6-v2: 384): the model cannot shorten its vectors; any other is a 400 naming dimensions"
     },
     "user": {
      "type": "string",
      "description": "Accepted, no effect"
     },
     "truncate": {
      "type": "boolean",
      "description": "RunAnywhere's own: cut a text longer than the model reads to fit (keeping its start) instead of refusing it (default false)"
     },
     "keep_alive": {
      "$ref": "#/components/schemas/KeepAlive"
     }
    }
   },
   "EmbeddingList": {
    "type": "object",
    "required": [
     "object",
     "data",
     "model",
     "usage"
    ],
    "properties": {
     "object": {
      "const": "list"
     },
     "data": {
      "type": "array",
      "items": {
       "type": "object",
       "required": [
        "object",
        "index",
        "embedding"
       ],
       "properties": {
        "object": {
         "const": "embedding"
        },
        "index": {
         "type": "integer",
         "minimum": 0,
         "description": "The text's place in input"
        },
        "embedding": {
         "oneOf": [
          {
           "type": "array",
           "items": {
            "type": "number"
           },
           "description": "encoding_format float"
          },
          {
           "type": "string",
           "description": "encoding_format base64: little-endian float32 values"
          }
         ]
        }
       }
      }
     },
     "model": {
      "type": "string",
      "description": "The model that embedded the texts"
     },
     "usage": {
      "type": "object",
      "required": [
       "prompt_tokens",
       "total_tokens"
      ],
      "properties": {
       "prompt_tokens": {
        "type": "integer",
        "minimum": 0,
        "description": "The texts' tokens, the model's special tokens included"
       },
       "total_tokens": {
        "type": "integer",
        "minimum": 0
       }
      }
     }
    }
   },
   "ToolCall": {
    "type": "object",
    "required": [
     "id",
     "type",
     "function"
    ],
    "properties": {
     "id": {
      "type": "string"
     },
     "type": {
      "const": "function"
     },
     "function": {
      "type": "object",
      "required": [
       "name",
       "arguments"
      ],
      "properties": {
       "name": {
        "type": "string"
       },
       "arguments": {
        "type": "string",
        "contentMediaType": "application/json",
        "contentSchema": {
         "type": "object"
        },
        "description": "The arguments as JSON text: an object that matches the tool's parameters schema"
       }
      }
     }
    }
   },
   "InferenceFramework": {
    "type": "string",
    "enum": [
     "ONNX",
     "LlamaCpp",
     "WhisperCpp",
     "EspeakNG",
     "StableDiffusionCpp",
     "FoundationModels",
     "SystemTTS",
     "FluidAudio",
     "CoreML",
     "MLX",
     "WhisperKitCoreML",
     "MetalRT",
     "BuiltIn",
     "None",
     "Unknown"
    ],
    "description": "The SDK's InferenceFramework"
   },
   "ModelCategory": {
    "type": "string",
    "enum": [
     "language",
     "speech-recognition",
     "speech-synthesis",
     "vision",
     "image-generation",
     "multimodal",
     "audio",
     "embedding",
     "reranking"
    ],
    "description": "The SDK's ModelCategory"
   },
   "ModelFormat": {
    "type": "string",
    "enum": [
     "onnx",
     "ort",
     "gguf",
     "ggml",
     "safetensors",
     "bin",
     "coreml",
     "unknown"
    ],
    "description": "The SDK's ModelFormat"
   },
   "FrameworkModality": {
    "type": "string",
    "enum": [
     "text-to-text",
     "voice-to-text",
     "text-to-voice",
     "image-to-text",
     "text-to-image",
     "multimodal"
    ],
    "description": "The SDK's FrameworkModality: a kind of work"
   },
   "MessageRole": {
    "type": "string",
    "enum": [
     "system",
     "user",
     "assistant",
     "tool"
    ],
    "description": "The SDK's MessageRole"
   },
   "SDKEnvironment": {
    "type": "string",
    "enum": [
     "development",
     "staging",
     "production"
    ],
    "description": "The SDK's SDKEnvironment"
   },
   "BenchmarkCategory": {
    "type": "string",
    "enum": [
     "llm",
     "stt",
     "tts",
     "vlm",
     "diffusion",
     "embedding"
    ],
    "description": "The benchmarks' BenchmarkCategory"
   },
   "BenchmarkRunStatus": {
    "type": "string",
    "enum": [
     "running",
     "completed",
     "failed",
     "cancelled",
     "interrupted"
    ],
    "description": "The benchmarks' BenchmarkRunStatus; interrupted: its process died before the run ended"
   },
   "DiffusionScheduler": {
    "type": "string",
    "enum": [
     "dpm++_2m_karras",
     "dpm++_2m",
     "dpm++_2m_sde",
     "ddim",
     "euler",
     "euler_a",
     "pndm",
     "lms",
     "lcm"
    ],
    "description": "The SDK's DiffusionScheduler (stable-diffusion.cpp has all but dpm++_2m_sde and lms)"
   },
   "KeepAlive": {
    "description": "ollama's keep_alive: seconds as a number, or a duration such as \"30s\", \"5m\", \"1h\", \"500ms\"; negative keeps the model loaded for ever, and so does one over about 292 years (2^63 ns, e.g. 1e300); 0 unloads it once the request ends (on POST /api/models/{id}/load, 0 is a 400: DELETE unloads). \"nan\", \"inf\" and numbers beyond a double are a 400 naming keep_alive",
    "oneOf": [
     {
      "type": "number"
     },
     {
      "type": "string",
      "pattern": "^[ \\t]*[-+]?([0-9]+(\\.[0-9]*)?|\\.[0-9]+)([eE][-+]?[0-9]{1,2})?([mM][sS]|[sSmMhH])?[ \\t]*$"
     }
    ]
   },
   "SettingsChange": {
    "type": "object",
    "additionalProperties": false,
    "description": "Some of the settings; any other key is refused (400). null clears systemPrompt and threads",
    "properties": {
     "temperature": {
      "type": "number",
      "minimum": 0,
      "maximum": 2
     },
     "maxTokens": {
      "type": "integer",
      "minimum": 1,
      "maximum": 999999999999999
     },
     "topP": {
      "type": "number",
      "exclusiveMinimum": 0,
      "maximum": 1
     },
     "topK": {
      "type": "integer",
      "minimum": 0,
      "maximum": 999999999999999
     },
     "systemPrompt": {
      "type": [
       "string",
       "null"
      ],
      "description": "\"\" or null clears it"
     },
     "streaming": {
      "type": "boolean"
     },
     "threads": {
      "type": [
       "integer",
       "null"
      ],
      "minimum": 1,
      "maximum": 512,
      "description": "null: all cores, at most 4"
     }
    }
   },
   "TitleChange": {
    "type": "object",
    "required": [
     "title"
    ],
    "properties": {
     "title": {
      "type": "string",
      "pattern": "\\S",
      "description": "Not blank; trimmed"
     }
    }
   },
   "MessageRequest": {
    "allOf": [
     {
      "$ref": "#/components/schemas/AnswerRequest"
     },
     {
      "type": "object",
      "required": [
       "content"
      ],
      "properties": {
       "content": {
        "type": "string",
        "pattern": "\\S",
        "description": "The message; not blank"
       }
      }
     }
    ],
    "description": "A message to answer: its text, the model, and options over the saved settings"
   },
   "ChatCompletionChunk": {
    "type": "object",
    "required": [
     "id",
     "object",
     "created",
     "model",
     "choices"
    ],
    "properties": {
     "id": {
      "type": "string"
     },
     "object": {
      "const": "chat.completion.chunk"
     },
     "created": {
      "type": "integer"
     },
     "model": {
      "type": "string"
     },
     "choices": {
      "type": "array",
      "description": "Empty in the closing usage chunk",
      "items": {
       "type": "object",
       "required": [
        "index",
        "delta",
        "finish_reason"
       ],
       "properties": {
        "index": {
         "type": "integer"
        },
        "delta": {
         "type": "object",
         "properties": {
          "role": {
           "const": "assistant"
          },
          "content": {
           "type": "string"
          },
          "reasoning_content": {
           "type": "string"
          },
          "tool_calls": {
           "type": "array",
           "items": {
            "type": "object",
            "required": [
             "index",
             "function"
            ],
            "properties": {
             "index": {
              "type": "integer"
             },
             "id": {
              "type": "string"
             },
             "type": {
              "const": "function"
             },
             "function": {
              "type": "object",
              "required": [
               "arguments"
              ],
              "properties": {
               "name": {
                "type": "string"
               },
               "arguments": {
                "type": "string"
               }
              }
             }
            }
           }
          }
         }
        },
        "finish_reason": {
         "enum": [
          "stop",
          "length",
          "tool_calls",
          null
         ]
        }
       }
      }
     },
     "usage": {
      "$ref": "#/components/schemas/Usage"
     },
     "timings": {
      "$ref": "#/components/schemas/Timings"
     }
    }
   },
   "AnthropicPrompt": {
    "type": "object",
    "description": "What the Messages routes share",
    "required": [
     "model",
     "messages"
    ],
    "properties": {
     "model": {
      "type": "string",
      "minLength": 1
     },
     "messages": {
      "type": "array",
      "minItems": 1,
      "items": {
       "$ref": "#/components/schemas/AnthropicMessageParam"
      },
      "description": "The conversation, ending with the user's message (a prefilled assistant message is refused)"
     },
     "system": {
      "oneOf": [
       {
        "type": "string"
       },
       {
        "type": "array",
        "items": {
         "type": "object",
         "required": [
          "type",
          "text"
         ],
         "properties": {
          "type": {
           "const": "text"
          },
          "text": {
           "type": "string"
          }
         }
        }
       }
      ],
      "description": "The system prompt"
     },
     "tools": {
      "type": "array",
      "items": {
       "$ref": "#/components/schemas/AnthropicTool"
      }
     },
     "tool_choice": {
      "$ref": "#/components/schemas/AnthropicToolChoice"
     },
     "thinking": {
      "$ref": "#/components/schemas/AnthropicThinking"
     },
     "output_config": {
      "$ref": "#/components/schemas/AnthropicOutputConfig"
     }
    }
   },
   "AnthropicMessagesRequest": {
    "allOf": [
     {
      "$ref": "#/components/schemas/AnthropicPrompt"
     },
     {
      "type": "object",
      "required": [
       "max_tokens"
      ],
      "properties": {
       "max_tokens": {
        "type": "integer",
        "minimum": 1,
        "maximum": 9223372036854775807
       },
       "stop_sequences": {
        "type": "array",
        "items": {
         "type": "string",
         "minLength": 1
        }
       },
       "temperature": {
        "type": "number",
        "minimum": 0,
        "maximum": 2,
        "description": "Sent by older clients and others (the current anthropic package has no argument for it)"
       },
       "top_p": {
        "type": "number",
        "exclusiveMinimum": 0,
        "maximum": 1
       },
       "top_k": {
        "type": "integer",
        "minimum": 0,
        "maximum": 9223372036854775807
       },
       "stream": {
        "type": "boolean"
       },
       "metadata": {
        "type": "object",
        "description": "Accepted; not used"
       }
      }
     }
    ]
   },
   "AnthropicCountTokensRequest": {
    "allOf": [
     {
      "$ref": "#/components/schemas/AnthropicPrompt"
     }
    ]
   },
   "AnthropicMessageParam": {
    "type": "object",
    "required": [
     "role",
     "content"
    ],
    "properties": {
     "role": {
      "enum": [
       "user",
       "assistant"
      ]
     },
     "content": {
      "oneOf": [
       {
        "type": "string"
       },
       {
        "type": "array",
        "items": {
         "$ref": "#/components/schemas/AnthropicRequestBlock"
        }
       }
      ]
     }
    }
   },
   "AnthropicRequestBlock": {
    "description": "text; image (base64); an assistant's tool_use; a user's tool_result; thinking and redacted_thinking (skipped: the chat template does not read them again)",
    "oneOf": [
     {
      "type": "object",
      "required": [
       "type",
       "text"
      ],
      "properties": {
       "type": {
        "const": "text"
       },
       "text": {
        "type": "string"
       }
      }
     },
     {
      "type": "object",
      "required": [
       "type",
       "source"
      ],
      "description": "An image for a vision-language model, in the request (this server fetches no URLs)",
      "properties": {
       "type": {
        "const": "image"
       },
       "source": {
        "type": "object",
        "required": [
         "type",
         "media_type",
         "data"
        ],
        "properties": {
         "type": {
          "const": "base64"
         },
         "media_type": {
          "type": "string",
          "examples": [
           "image/png"
          ]
         },
         "data": {
          "type": "string",
          "description": "The image's bytes, base64"
         }
        }
       }
      }
     },
     {
      "type": "object",
      "required": [
       "type",
       "id",
       "name",
       "input"
      ],
      "properties": {
       "type": {
        "const": "tool_use"
       },
       "id": {
        "type": "string"
       },
       "name": {
        "type": "string"
       },
       "input": {
        "type": "object"
       }
      }
     },
     {
      "type": "object",
      "required": [
       "type",
       "tool_use_id"
      ],
      "properties": {
       "type": {
        "const": "tool_result"
       },
       "tool_use_id": {
        "type": "string"
       },
       "content": {
        "oneOf": [
         {
          "type": "string"
         },
         {
          "type": "array",
          "items": {
           "oneOf": [
            {
             "type": "object",
             "required": [
              "type",
              "text"
             ],
             "properties": {
              "type": {
               "const": "text"
              },
              "text": {
               "type": "string"
              }
             }
            },
            {
             "type": "object",
             "required": [
              "type",
              "source"
             ],
             "description": "An image for a vision-language model, in the request (this server fetches no URLs)",
             "properties": {
              "type": {
               "const": "image"
              },
              "source": {
               "type": "object",
               "required": [
                "type",
                "media_type",
                "data"
               ],
               "properties": {
                "type": {
                 "const": "base64"
                },
                "media_type": {
                 "type": "string",
                 "examples": [
                  "image/png"
                 ]
                },
                "data": {
                 "type": "string",
                 "description": "The image's bytes, base64"
                }
               }
              }
             }
            }
           ]
          }
         }
        ]
       },
       "is_error": {
        "type": "boolean"
       }
      }
     },
     {
      "type": "object",
      "required": [
       "type"
      ],
      "properties": {
       "type": {
        "enum": [
         "thinking",
         "redacted_thinking"
        ]
       }
      }
     }
    ]
   },
   "AnthropicTool": {
    "type": "object",
    "required": [
     "name"
    ],
    "description": "A custom tool (Anthropic's server tools do not exist here); each call is grammar-constrained, so its input always matches input_schema",
    "properties": {
     "type": {
      "const": "custom"
     },
     "name": {
      "type": "string",
      "pattern": "^[A-Za-z0-9_-]{1,64}$"
     },
     "description": {
      "type": "string"
     },
     "input_schema": {
      "type": "object"
     }
    }
   },
   "AnthropicToolChoice": {
    "type": "object",
    "required": [
     "type"
    ],
    "description": "auto (the default with tools), any (a call of some tool), tool (a call of the one named), none",
    "properties": {
     "type": {
      "enum": [
       "auto",
       "any",
       "tool",
       "none"
      ]
     },
     "name": {
      "type": "string"
     },
     "disable_parallel_tool_use": {
      "type": "boolean"
     }
    }
   },
   "AnthropicThinking": {
    "type": "object",
    "required": [
     "type"
    ],
    "description": "A thinking model's reasoning comes as thinking blocks unless type is disabled or display omitted; the model thinks as it does (there is no budget to give it)",
    "properties": {
     "type": {
      "enum": [
       "enabled",
       "adaptive",
       "disabled",
       "between_tools"
      ]
     },
     "budget_tokens": {
      "type": "integer",
      "description": "Accepted"
     },
     "display": {
      "enum": [
       "summarized",
       "omitted"
      ]
     }
    }
   },
   "AnthropicOutputConfig": {
    "type": "object",
    "properties": {
     "effort": {
      "type": "string",
      "description": "Accepted; a local model has one way of working"
     },
     "format": {
      "type": "object",
      "required": [
       "type",
       "schema"
      ],
      "description": "The answer keeps to this JSON schema (the json_schema subset of response_format)",
      "properties": {
       "type": {
        "const": "json_schema"
       },
       "schema": {
        "type": "object"
       }
      }
     }
    }
   },
   "AnthropicMessage": {
    "type": "object",
    "required": [
     "id",
     "type",
     "role",
     "content",
     "model",
     "stop_reason",
     "stop_sequence",
     "usage"
    ],
    "properties": {
     "id": {
      "type": "string"
     },
     "type": {
      "const": "message"
     },
     "role": {
      "const": "assistant"
     },
     "content": {
      "type": "array",
      "items": {
       "$ref": "#/components/schemas/AnthropicContentBlock"
      }
     },
     "model": {
      "type": "string"
     },
     "stop_reason": {
      "description": "null in message_start",
      "oneOf": [
       {
        "enum": [
         "end_turn",
         "max_tokens",
         "stop_sequence",
         "tool_use"
        ]
       },
       {
        "type": "null"
       }
      ]
     },
     "stop_sequence": {
      "type": [
       "string",
       "null"
      ],
      "description": "The request's stop sequence that ended the answer"
     },
     "usage": {
      "$ref": "#/components/schemas/AnthropicUsage"
     }
    }
   },
   "AnthropicContentBlock": {
    "description": "The model's reasoning (thinking; its signature is empty), text, or a tool call",
    "oneOf": [
     {
      "type": "object",
      "required": [
       "type",
       "thinking",
       "signature"
      ],
      "properties": {
       "type": {
        "const": "thinking"
       },
       "thinking": {
        "type": "string"
       },
       "signature": {
        "type": "string"
       }
      }
     },
     {
      "type": "object",
      "required": [
       "type",
       "text"
      ],
      "properties": {
       "type": {
        "const": "text"
       },
       "text": {
        "type": "string"
       }
      }
     },
     {
      "type": "object",
      "required": [
       "type",
       "id",
       "name",
       "input"
      ],
      "properties": {
       "type": {
        "const": "tool_use"
       },
       "id": {
        "type": "string"
       },
       "name": {
        "type": "string"
       },
       "input": {
        "type": "object"
       }
      }
     }
    ]
   },
   "AnthropicUsage": {
    "type": "object",
    "required": [
     "input_tokens",
     "output_tokens"
    ],
    "properties": {
     "input_tokens": {
      "type": "integer",
      "description": "The prompt's tokens (0 in message_start: the count comes with message_delta)"
     },
     "output_tokens": {
      "type": "integer"
     },
     "cache_read_input_tokens": {
      "type": "integer",
      "description": "Of the prompt's tokens, those reused from an earlier request's cache"
     },
     "cache_creation_input_tokens": {
      "type": "integer"
     }
    }
   },
   "AnthropicTokenCount": {
    "type": "object",
    "required": [
     "input_tokens"
    ],
    "properties": {
     "input_tokens": {
      "type": "integer"
     }
    }
   },
   "AnthropicMessageStartEvent": {
    "type": "object",
    "required": [
     "type",
     "message"
    ],
    "properties": {
     "type": {
      "const": "message_start"
     },
     "message": {
      "$ref": "#/components/schemas/AnthropicMessage"
     }
    }
   },
   "AnthropicPingEvent": {
    "type": "object",
    "required": [
     "type"
    ],
    "properties": {
     "type": {
      "const": "ping"
     }
    }
   },
   "AnthropicContentBlockStartEvent": {
    "type": "object",
    "required": [
     "type",
     "index",
     "content_block"
    ],
    "properties": {
     "type": {
      "const": "content_block_start"
     },
     "index": {
      "type": "integer"
     },
     "content_block": {
      "$ref": "#/components/schemas/AnthropicContentBlock"
     }
    }
   },
   "AnthropicContentBlockDeltaEvent": {
    "type": "object",
    "required": [
     "type",
     "index",
     "delta"
    ],
    "properties": {
     "type": {
      "const": "content_block_delta"
     },
     "index": {
      "type": "integer"
     },
     "delta": {
      "oneOf": [
       {
        "type": "object",
        "required": [
         "type",
         "text"
        ],
        "properties": {
         "type": {
          "const": "text_delta"
         },
         "text": {
          "type": "string"
         }
        }
       },
       {
        "type": "object",
        "required": [
         "type",
         "thinking"
        ],
        "properties": {
         "type": {
          "const": "thinking_delta"
         },
         "thinking": {
          "type": "string"
         }
        }
       },
       {
        "type": "object",
        "required": [
         "type",
         "partial_json"
        ],
        "description": "A tool call's input, whole",
        "properties": {
         "type": {
          "const": "input_json_delta"
         },
         "partial_json": {
          "type": "string"
         }
        }
       }
      ]
     }
    }
   },
   "AnthropicContentBlockStopEvent": {
    "type": "object",
    "required": [
     "type",
     "index"
    ],
    "properties": {
     "type": {
      "const": "content_block_stop"
     },
     "index": {
      "type": "integer"
     }
    }
   },
   "AnthropicMessageDeltaEvent": {
    "type": "object",
    "required": [
     "type",
     "delta",
     "usage"
    ],
    "properties": {
     "type": {
      "const": "message_delta"
     },
     "delta": {
      "type": "object",
      "required": [
       "stop_reason",
       "stop_sequence"
      ],
      "properties": {
       "stop_reason": {
        "enum": [
         "end_turn",
         "max_tokens",
         "stop_sequence",
         "tool_use"
        ]
       },
       "stop_sequence": {
        "type": [
         "string",
         "null"
        ]
       }
      }
     },
     "usage": {
      "$ref": "#/components/schemas/AnthropicUsage"
     }
    }
   },
   "AnthropicMessageStopEvent": {
    "type": "object",
    "required": [
     "type"
    ],
    "properties": {
     "type": {
      "const": "message_stop"
     }
    }
   },
   "AnthropicError": {
    "type": "object",
    "required": [
     "type",
     "error"
    ],
    "description": "An error of the Messages routes, in Anthropic's shape",
    "properties": {
     "type": {
      "const": "error"
     },
     "error": {
      "type": "object",
      "required": [
       "type",
       "message"
      ],
      "properties": {
       "type": {
        "enum": [
         "invalid_request_error",
         "authentication_error",
         "permission_error",
         "not_found_error",
         "request_too_large",
         "overloaded_error",
         "api_error"
        ]
       },
       "message": {
        "type": "string"
       }
      }
     }
    }
   },
   "OllamaError": {
    "type": "object",
    "required": [
     "error"
    ],
    "additionalProperties": false,
    "properties": {
     "error": {
      "type": "string"
     }
    },
    "description": "ollama's error shape, on ollama's routes; also the last line of a stream that failed"
   },
   "OllamaOptions": {
    "type": "object",
    "description": "ollama's runner parameters. Mapped: num_predict (-1 or -2: as many tokens as the context holds, ollama's default), temperature, top_k, top_p, seed (negative: none), stop, num_thread, and for the request that loads the model num_ctx and num_gpu (-1: the engine decides). Other names are accepted without effect, as ollama accepts them",
    "properties": {
     "num_predict": {
      "type": "integer",
      "minimum": -2,
      "not": {
       "const": 0
      }
     },
     "temperature": {
      "type": "number",
      "minimum": 0,
      "maximum": 2
     },
     "top_k": {
      "type": "integer",
      "minimum": 0
     },
     "top_p": {
      "type": "number",
      "minimum": 0,
      "maximum": 1
     },
     "seed": {
      "type": "integer",
      "maximum": 4294967295
     },
     "stop": {
      "oneOf": [
       {
        "type": "string"
       },
       {
        "type": "array",
        "items": {
         "type": "string"
        }
       }
      ]
     },
     "num_ctx": {
      "type": "integer",
      "minimum": 1
     },
     "num_gpu": {
      "type": "integer",
      "minimum": -1
     },
     "num_thread": {
      "type": "integer",
      "minimum": 1,
      "maximum": 512
     }
    }
   },
   "OllamaFormat": {
    "description": "\"json\" (any JSON object), a JSON schema the answer keeps to, or \"\" (free text)",
    "oneOf": [
     {
      "enum": [
       "",
       "json"
      ]
     },
     {
      "type": "object"
     }
    ]
   },
   "OllamaThink": {
    "description": "Whether the model's reasoning is sent (in thinking); true for a model that does not think is a 400. An effort is taken as true",
    "oneOf": [
     {
      "type": "boolean"
     },
     {
      "enum": [
       "high",
       "medium",
       "low"
      ]
     }
    ]
   },
   "OllamaToolCallParam": {
    "type": "object",
    "required": [
     "function"
    ],
    "properties": {
     "id": {
      "type": "string"
     },
     "function": {
      "type": "object",
      "required": [
       "name"
      ],
      "properties": {
       "name": {
        "type": "string"
       },
       "arguments": {
        "oneOf": [
         {
          "type": "object"
         },
         {
          "type": "string",
          "description": "JSON text of an object"
         }
        ]
       }
      }
     }
    }
   },
   "OllamaChatMessageParam": {
    "type": "object",
    "required": [
     "role"
    ],
    "properties": {
     "role": {
      "enum": [
       "system",
       "user",
       "assistant",
       "tool"
      ]
     },
     "content": {
      "type": "string"
     },
     "images": {
      "type": "array",
      "items": {
       "type": "string",
       "description": "base64 of a PNG or JPEG (vision-language models)"
      }
     },
     "thinking": {
      "type": "string",
      "description": "An assistant's earlier reasoning: accepted, not read again"
     },
     "tool_calls": {
      "type": "array",
      "items": {
       "$ref": "#/components/schemas/OllamaToolCallParam"
      }
     },
     "tool_name": {
      "type": "string",
      "description": "A tool result's tool: it answers the earliest unanswered call of that name"
     },
     "tool_call_id": {
      "type": "string"
     }
    }
   },
   "OllamaChatRequest": {
    "type": "object",
    "required": [
     "model"
    ],
    "properties": {
     "model": {
      "type": "string",
      "minLength": 1,
      "description": "An installed model's id, or its ollama name (id:latest)"
     },
     "stream": {
      "type": "boolean",
      "default": true,
      "description": "Lines of application/x-ndjson unless false"
     },
     "options": {
      "$ref": "#/components/schemas/OllamaOptions"
     },
     "format": {
      "$ref": "#/components/schemas/OllamaFormat"
     },
     "think": {
      "$ref": "#/components/schemas/OllamaThink"
     },
     "keep_alive": {
      "$ref": "#/components/schemas/KeepAlive"
     },
     "messages": {
      "type": "array",
      "items": {
       "$ref": "#/components/schemas/OllamaChatMessageParam"
      },
      "description": "The conversation, ending with the user's message or tool results; none loads the model (with keep_alive 0, unloads it)"
     },
     "tools": {
      "type": "array",
      "description": "Functions the model may call; each call is grammar-constrained, so its arguments always parse and match the schema (the json_schema subset of response_format)",
      "items": {
       "type": "object",
       "required": [
        "type",
        "function"
       ],
       "properties": {
        "type": {
         "const": "function"
        },
        "function": {
         "type": "object",
         "required": [
          "name"
         ],
         "properties": {
          "name": {
           "type": "string",
           "pattern": "^[A-Za-z0-9_-]{1,64}$"
          },
          "description": {
           "type": "string"
          },
          "parameters": {
           "type": "object"
          },
          "strict": {
           "type": "boolean",
           "description": "Accepted; the arguments always keep to the schema"
          }
         }
        }
       }
      }
     }
    }
   },
   "OllamaGenerateRequest": {
    "type": "object",
    "required": [
     "model"
    ],
    "properties": {
     "model": {
      "type": "string",
      "minLength": 1,
      "description": "An installed model's id, or its ollama name (id:latest)"
     },
     "stream": {
      "type": "boolean",
      "default": true,
      "description": "Lines of application/x-ndjson unless false"
     },
     "options": {
      "$ref": "#/components/schemas/OllamaOptions"
     },
     "format": {
      "$ref": "#/components/schemas/OllamaFormat"
     },
     "think": {
      "$ref": "#/components/schemas/OllamaThink"
     },
     "keep_alive": {
      "$ref": "#/components/schemas/KeepAlive"
     },
     "prompt": {
      "type": "string",
      "description": "Empty (with no images) loads the model, or with keep_alive 0 unloads it"
     },
     "system": {
      "type": "string"
     },
     "raw": {
      "type": "boolean",
      "description": "The prompt verbatim, without the chat template"
     },
     "images": {
      "type": "array",
      "items": {
       "type": "string"
      }
     },
     "template": {
      "type": "string",
      "description": "Only empty: an ollama Go template is a 400 (the model's own chat template is used)"
     },
     "suffix": {
      "type": "string",
      "description": "Only empty: fill-in-the-middle is a 400"
     },
     "context": {
      "type": "array",
      "items": {
       "type": "integer"
      },
      "description": "Only empty: token ids of an earlier answer (deprecated by ollama) are a 400"
     }
    }
   },
   "OllamaToolCall": {
    "type": "object",
    "required": [
     "id",
     "function"
    ],
    "properties": {
     "id": {
      "type": "string"
     },
     "function": {
      "type": "object",
      "required": [
       "index",
       "name",
       "arguments"
      ],
      "properties": {
       "index": {
        "type": "integer",
        "minimum": 0
       },
       "name": {
        "type": "string"
       },
       "arguments": {
        "type": "object"
       }
      }
     }
    }
   },
   "OllamaMessage": {
    "type": "object",
    "required": [
     "role",
     "content"
    ],
    "properties": {
     "role": {
      "const": "assistant"
     },
     "content": {
      "type": "string"
     },
     "thinking": {
      "type": "string"
     },
     "tool_calls": {
      "type": "array",
      "items": {
       "$ref": "#/components/schemas/OllamaToolCall"
      }
     }
    }
   },
   "OllamaChatResponse": {
    "type": "object",
    "required": [
     "model",
     "created_at",
     "message",
     "done"
    ],
    "description": "A streamed line (done false) or the last line and whole answer (done true, with done_reason and the stats)",
    "properties": {
     "model": {
      "type": "string"
     },
     "created_at": {
      "type": "string",
      "format": "date-time"
     },
     "message": {
      "$ref": "#/components/schemas/OllamaMessage"
     },
     "done": {
      "type": "boolean"
     },
     "done_reason": {
      "enum": [
       "stop",
       "length",
       "load",
       "unload"
      ],
      "description": "On the last line: stop (also after tool calls), length, or load and unload for a request without a prompt"
     },
     "total_duration": {
      "type": "integer",
      "minimum": 0,
      "description": "Nanoseconds since the request arrived"
     },
     "load_duration": {
      "type": "integer",
      "minimum": 0,
      "description": "Nanoseconds until the engine took the request: loading the model, or waiting for it"
     },
     "prompt_eval_count": {
      "type": "integer",
      "minimum": 0,
      "description": "The prompt's tokens, cached ones included"
     },
     "prompt_eval_duration": {
      "type": "integer",
      "minimum": 0,
      "description": "Nanoseconds until the first token"
     },
     "eval_count": {
      "type": "integer",
      "minimum": 0,
      "description": "Tokens generated"
     },
     "eval_duration": {
      "type": "integer",
      "minimum": 0,
      "description": "Nanoseconds generating after the first token"
     }
    }
   },
   "OllamaGenerateResponse": {
    "type": "object",
    "required": [
     "model",
     "created_at",
     "response",
     "done"
    ],
    "description": "A streamed line (done false) or the last line and whole answer (done true, with done_reason and the stats)",
    "properties": {
     "model": {
      "type": "string"
     },
     "created_at": {
      "type": "string",
      "format": "date-time"
     },
     "response": {
      "type": "string"
     },
     "thinking": {
      "type": "string"
     },
     "done": {
      "type": "boolean"
     },
     "done_reason": {
      "enum": [
       "stop",
       "length",
       "load",
       "unload"
      ],
      "description": "On the last line: stop (also after tool calls), length, or load and unload for a request without a prompt"
     },
     "total_duration": {
      "type": "integer",
      "minimum": 0,
      "description": "Nanoseconds since the request arrived"
     },
     "load_duration": {
      "type": "integer",
      "minimum": 0,
      "description": "Nanoseconds until the engine took the request: loading the model, or waiting for it"
     },
     "prompt_eval_count": {
      "type": "integer",
      "minimum": 0,
      "description": "The prompt's tokens, cached ones included"
     },
     "prompt_eval_duration": {
      "type": "integer",
      "minimum": 0,
      "description": "Nanoseconds until the first token"
     },
     "eval_count": {
      "type": "integer",
      "minimum": 0,
      "description": "Tokens generated"
     },
     "eval_duration": {
      "type": "integer",
      "minimum": 0,
      "description": "Nanoseconds generating after the first token"
     }
    }
   },
   "OllamaEmbedRequest": {
    "type": "object",
    "required": [
     "model",
     "input"
    ],
    "properties": {
     "model": {
      "type": "string"
     },
     "input": {
      "oneOf": [
       {
        "type": "string"
       },
       {
        "type": "array",
        "items": {
         "type": "string"
        }
       }
      ]
     },
     "truncate": {
      "type": "boolean",
      "default": true,
      "description": "Cut a text longer than the model reads (ollama's default); false refuses it"
     },
     "dimensions": {
      "type": "integer",
      "minimum": 1,
      "description": "Only the model's own"
     },
     "options": {
      "$ref": "#/components/schemas/OllamaOptions"
     },
     "keep_alive": {
      "$ref": "#/components/schemas/KeepAlive"
     }
    }
   },
   "OllamaEmbedResponse": {
    "type": "object",
    "required": [
     "model",
     "embeddings"
    ],
    "properties": {
     "model": {
      "type": "string"
     },
     "embeddings": {
      "type": "array",
      "items": {
       "type": "array",
       "items": {
        "type": "number"
       }
      },
      "description": "L2-normalized vectors, in the order of input"
     },
     "total_duration": {
      "type": "integer",
      "minimum": 0,
      "description": "Nanoseconds since the request arrived"
     },
     "load_duration": {
      "type": "integer",
      "minimum": 0,
      "description": "Nanoseconds until the engine took the request: loading the model, or waiting for it"
     },
     "prompt_eval_count": {
      "type": "integer",
      "minimum": 0,
      "description": "The prompt's tokens, cached ones included"
     }
    }
   },
   "OllamaEmbeddingsRequest": {
    "type": "object",
    "required": [
     "model"
    ],
    "properties": {
     "model": {
      "type": "string"
     },
     "prompt": {
      "type": "string",
      "description": "Empty is answered with an empty vector, as ollama answers it"
     },
     "options": {
      "$ref": "#/components/schemas/OllamaOptions"
     },
     "keep_alive": {
      "$ref": "#/components/schemas/KeepAlive"
     }
    }
   },
   "OllamaEmbeddingsResponse": {
    "type": "object",
    "required": [
     "embedding"
    ],
    "properties": {
     "embedding": {
      "type": "array",
      "items": {
       "type": "number"
      }
     }
    }
   },
   "OllamaModelDetails": {
    "type": "object",
    "required": [
     "parent_model",
     "format",
     "family",
     "families",
     "parameter_size",
     "quantization_level"
    ],
    "properties": {
     "parent_model": {
      "type": "string"
     },
     "format": {
      "type": "string"
     },
     "family": {
      "type": "string"
     },
     "families": {
      "type": "array",
      "items": {
       "type": "string"
      }
     },
     "parameter_size": {
      "type": "string"
     },
     "quantization_level": {
      "type": "string"
     }
    }
   },
   "OllamaModelEntry": {
    "type": "object",
    "required": [
     "name",
     "model",
     "modified_at",
     "size",
     "digest",
     "details"
    ],
    "properties": {
     "name": {
      "type": "string",
      "description": "id:latest"
     },
     "model": {
      "type": "string"
     },
     "modified_at": {
      "type": "string",
      "format": "date-time"
     },
     "size": {
      "type": "integer"
     },
     "digest": {
      "type": "string",
      "description": "SHA-256 of the id, size and modification time of the model's file: it changes when they do"
     },
     "details": {
      "$ref": "#/components/schemas/OllamaModelDetails"
     }
    }
   },
   "OllamaModelList": {
    "type": "object",
    "required": [
     "models"
    ],
    "properties": {
     "models": {
      "type": "array",
      "items": {
       "$ref": "#/components/schemas/OllamaModelEntry"
      }
     }
    }
   },
   "OllamaLoadedModel": {
    "type": "object",
    "required": [
     "name",
     "model",
     "size",
     "digest",
     "details",
     "size_vram"
    ],
    "properties": {
     "name": {
      "type": "string"
     },
     "model": {
      "type": "string"
     },
     "size": {
      "type": "integer",
      "description": "Host memory, bytes"
     },
     "digest": {
      "type": "string"
     },
     "details": {
      "$ref": "#/components/schemas/OllamaModelDetails"
     },
     "expires_at": {
      "type": "string",
      "format": "date-time",
      "description": "Absent while the model stays loaded for ever or is in use"
     },
     "size_vram": {
      "type": "integer",
      "description": "The part on a GPU, bytes"
     },
     "context_length": {
      "type": "integer"
     }
    }
   },
   "OllamaLoadedModelList": {
    "type": "object",
    "required": [
     "models"
    ],
    "properties": {
     "models": {
      "type": "array",
      "items": {
       "$ref": "#/components/schemas/OllamaLoadedModel"
      }
     }
    }
   },
   "OllamaModelRequest": {
    "type": "object",
    "properties": {
     "model": {
      "type": "string",
      "minLength": 1
     },
     "name": {
      "type": "string",
      "minLength": 1,
      "description": "model's older spelling"
     },
     "stream": {
      "type": "boolean",
      "default": true
     },
     "verbose": {
      "type": "boolean"
     },
     "insecure": {
      "type": "boolean"
     }
    },
    "anyOf": [
     {
      "required": [
       "model"
      ]
     },
     {
      "required": [
       "name"
      ]
     }
    ]
   },
   "OllamaShowResponse": {
    "type": "object",
    "required": [
     "license",
     "modelfile",
     "parameters",
     "template",
     "details",
     "model_info",
     "capabilities",
     "modified_at"
    ],
    "properties": {
     "license": {
      "type": "string"
     },
     "modelfile": {
      "type": "string"
     },
     "parameters": {
      "type": "string"
     },
     "template": {
      "type": "string",
      "description": "The GGUF's chat template (Jinja)"
     },
     "details": {
      "$ref": "#/components/schemas/OllamaModelDetails"
     },
     "model_info": {
      "type": "object",
      "description": "The GGUF header's values; arrays as null"
     },
     "capabilities": {
      "type": "array",
      "items": {
       "enum": [
        "completion",
        "tools",
        "vision",
        "embedding",
        "thinking"
       ]
      }
     },
     "modified_at": {
      "type": "string",
      "format": "date-time"
     }
    }
   },
   "OllamaPullProgress": {
    "type": "object",
    "required": [
     "status"
    ],
    "properties": {
     "status": {
      "type": "string",
      "description": "pulling manifest, pulling <id> (with digest, total and completed bytes), verifying sha256 digest, extracting, writing manifest, success"
     },
     "digest": {
      "type": "string"
     },
     "total": {
      "type": "integer"
     },
     "completed": {
      "type": "integer"
     }
    }
   },
   "OllamaVersion": {
    "type": "object",
    "required": [
     "version"
    ],
    "properties": {
     "version": {
      "type": "string",
      "description": "The SDK's version"
     }
    }
   }
  },
  "securitySchemes": {
   "bearer": {
    "type": "http",
    "scheme": "bearer",
    "description": "Needed only when the server was started with --api-key-stdin"
   },
   "apiKey": {
    "type": "apiKey",
    "in": "header",
    "name": "x-api-key",
    "description": "The same key, as Anthropic's clients may send it"
   }
  },
  "responses": {
   "BadRequest": {
    "description": "Malformed JSON or a bad field (`param` names it)",
    "content": {
     "application/json": {
      "schema": {
       "$ref": "#/components/schemas/Error"
      }
     }
    }
   },
   "Unauthorized": {
    "description": "A missing or wrong API key",
    "content": {
     "application/json": {
      "schema": {
       "$ref": "#/components/schemas/Error"
      }
     }
    }
   },
   "NotFound": {
    "description": "An unknown model or route",
    "content": {
     "application/json": {
      "schema": {
       "$ref": "#/components/schemas/Error"
      }
     }
    }
   },
   "Conflict": {
    "description": "Busy with another answer or run",
    "content": {
     "application/json": {
      "schema": {
       "$ref": "#/components/schemas/Error"
      }
     }
    }
   },
   "TooLarge": {
    "description": "The body is over the size limit",
    "content": {
     "application/json": {
      "schema": {
       "$ref": "#/components/schemas/Error"
      }
     }
    }
   },
   "Busy": {
    "description": "Busy (the queue is full) or out of memory; retry after Retry-After seconds",
    "headers": {
     "Retry-After": {
      "schema": {
       "type": "integer"
      }
     }
    },
    "content": {
     "application/json": {
      "schema": {
       "$ref": "#/components/schemas/Error"
      }
     }
    }
   },
   "Forbidden": {
    "description": "Refused before any work, by where the request comes from: a Host that is not the server's address (nor allowed by --allowed-host), an Origin that is neither the server's own nor allowed by --cors, or a browser's cross-site request without one (code host_not_allowed or origin_not_allowed)",
    "content": {
     "application/json": {
      "schema": {
       "$ref": "#/components/schemas/Error"
      }
     }
    }
   },
   "UnsupportedMediaType": {
    "description": "A body whose Content-Type is not application/json (or application/*+json), or none (code unsupported_media_type)",
    "content": {
     "application/json": {
      "schema": {
       "$ref": "#/components/schemas/Error"
      }
     }
    }
   },
   "AnthropicFailure": {
    "description": "A Messages route's error, in Anthropic's shape; error.type by status: 400 and 415 invalid_request_error, 401 authentication_error, 403 permission_error, 404 not_found_error, 413 request_too_large, 429 and 503 overloaded_error (with Retry-After), 500 api_error",
    "content": {
     "application/json": {
      "schema": {
       "$ref": "#/components/schemas/AnthropicError"
      }
     }
    }
   },
   "OllamaFailure": {
    "description": "An ollama route's error, in ollama's shape, with the failure's status (503 with Retry-After when busy)",
    "content": {
     "application/json": {
      "schema": {
       "$ref": "#/components/schemas/OllamaError"
      }
     }
    }
   }
  }
 }
}
"""#
}
