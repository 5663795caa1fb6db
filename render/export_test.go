package render

// ReadPlanDocumentLimit is ReadPlanDocument under another size limit.
var ReadPlanDocumentLimit = readPlanDocument
