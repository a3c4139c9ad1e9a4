"""Site-selection schedules: which sites are updated when, knowing nothing of the model."""
