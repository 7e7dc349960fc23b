/// What the seed harness's documentation shows (shared/spec/benchrunner-harness.md).
package enum SeedTelemetry {
    /// The seed's example payload (BenchRunner's README), as the iOS harness sends it.
    package static let example = """
        {
          "platform": "ios",
          "metrics": {
            "model_id": "GradientIdentity",
            "run_id": "<UUID>",
            "timestamp": "2024-10-02T20:30:00Z",
            "frames_processed": 1800,
            "warmup_frames": 45,
            "fps_avg": 29.8,
            "fps_min": 28.1,
            "fps_max": 31.4,
            "latency_p50_ms": 34.2,
            "latency_p95_ms": 38.5,
            "cold_start_ms": 215.7,
            "model_file_mb": 0.00,
            "battery_drop_pct_15m": 2.1,
            "thermal_state": "fair",
            "device_model": "iPhone15,3",
            "os_version": "17.0",
            "backend": "coreml",
            "telemetry_post_url": "http://localhost:8000/telemetry"
          }
        }
        """
}
