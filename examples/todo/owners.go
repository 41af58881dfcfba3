package main

import (
	"context"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
)

// byOwner returns the items of owner, from the table's global secondary
// index byOwner: the read access to the table covers its indexes.
func byOwner(ctx context.Context, table, owner string) ([]Todo, error) {
	client, err := db()
	if err != nil {
		return nil, err
	}
	out, err := client.Query(ctx, &dynamodb.QueryInput{
		TableName:                 aws.String(table),
		IndexName:                 aws.String("byOwner"),
		KeyConditionExpression:    aws.String("#o = :o"),
		ExpressionAttributeNames:  map[string]string{"#o": "owner"},
		ExpressionAttributeValues: map[string]types.AttributeValue{":o": &types.AttributeValueMemberS{Value: owner}},
	})
	if err != nil {
		return nil, err
	}
	todos := []Todo{}
	for _, item := range out.Items {
		todos = append(todos, todoOf(item))
	}
	return todos, nil
}

// todoOf reads an item of the table.
func todoOf(item map[string]types.AttributeValue) Todo {
	var t Todo
	if v, ok := item["id"].(*types.AttributeValueMemberS); ok {
		t.ID = v.Value
	}
	if v, ok := item["title"].(*types.AttributeValueMemberS); ok {
		t.Title = v.Value
	}
	if v, ok := item["done"].(*types.AttributeValueMemberBOOL); ok {
		t.Done = v.Value
	}
	if v, ok := item["owner"].(*types.AttributeValueMemberS); ok {
		t.Owner = v.Value
	}
	return t
}
