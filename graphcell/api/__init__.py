"""Function transformations of the public API: vmap, grad, value_and_grad."""
