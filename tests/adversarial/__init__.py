"""The adversarial suite: hostile tool output, hostile records and failures, through `cite`."""
