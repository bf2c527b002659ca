"""``torch._dynamo``'s public face: numtorch has no compiler (see ``eval_frame``)."""
