print("clawpair")
