"""Mail: what players write in the body of an email, read into commands and order lines."""
