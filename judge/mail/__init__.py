"""Mail: incoming email read into what the judge needs, and the command language players write in its body."""
