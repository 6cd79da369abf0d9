print("hallmark")
