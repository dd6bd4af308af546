"""The hostile-input suite: each attack of the reliability issues, reproduced."""
