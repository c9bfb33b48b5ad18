"""Extract Kafka's config definitions for one release from a git mirror into a YAML catalog (work in progress)."""
