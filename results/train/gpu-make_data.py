"""Rebuild the alpha-UMi role samples from the training trajectories (as `datagen umi` does)."""

import sys

from toollearn.data.trajectories import read_trajectories
from toollearn.datagen.dataset import write_dataset
from toollearn.datagen.umi import role_samples

samples = role_samples(read_trajectories(sys.argv[1]))
write_dataset(sys.argv[2], samples, config={"generator": "umi", "from": "trajectories_train.json"})
print(len(samples), "samples")
