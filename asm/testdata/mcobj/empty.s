! Nothing: .text alone, aligned to 4.
