"""What a training loop uses: token-id scoring, the reward scorer, accumulators.

``ids`` scores integer token ids; ``reward`` holds :class:`RewardScorer`,
whose references are cached once (``reference_cache``, ``image_keys``);
``accumulate`` holds :class:`CiderAccumulator`, whose mergeable state is
``state``.
"""
