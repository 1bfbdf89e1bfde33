"""Fine-tuning on a CPU (or a GPU): SFT/LoRA over `TrainingSample` data with TRL + PEFT, loss only
on the model-written spans, two-stage GLPFT, and export of adapters to GGUF for llama.cpp."""
