print("tonearm")
