package pipeline

// roleText is the CloudFormation template of the two roles the workflow
// assumes through GitHub's OIDC provider:
//
//   - the deploy role, trusted only by the workflow's runs for pushes to
//     the branch, may run `framework deploy` of the stage: CloudFormation
//     on the stage's stack and the assets stack, the assets bucket's
//     objects, and, only through CloudFormation (aws:CalledVia), the
//     services the stack's resources belong to; IAM roles only when named
//     after the stack (as CloudFormation names the roles it creates).
//   - the diff role, trusted by the runs for pull requests, may only read
//     the stack and create, describe and delete change sets, never
//     execute one: a pull request's code cannot change the account.
const roleText = `# Written by ` + "`framework generate-pipeline --github`" + `: the AWS roles the workflow
# <% .WorkflowPath %> assumes with GitHub's OIDC tokens (no stored keys).
#
#   <% .DeployVar %>: pushes to <% .Branch %> of <% .Repository %> only;
#     deploys the stack <% .DeployStack %> (framework deploy --stage <% .Stage %>).
#   <% .DiffVar %>: pull requests of <% .Repository %>; reads the stack
#     <% .DiffStack %> and creates change sets for framework diff, never executes one.
#
# Deploy it once, with credentials that may create IAM roles:
#
#   aws cloudformation deploy --region <% .Region %> --capabilities CAPABILITY_IAM \
#     --stack-name <% .RoleStack %> --template-file <% .TemplatePath %>
#
# An account has one GitHub OIDC provider: if it has one already, add
#   --parameter-overrides ExistingOIDCProviderArn=arn:aws:iam::<account>:oidc-provider/token.actions.githubusercontent.com
# Then set the repository variables (Settings > Secrets and variables > Actions > Variables)
# <% .DeployVar %> to the stack's output DeployRoleArn and <% .DiffVar %> to DiffRoleArn:
#
#   aws cloudformation describe-stacks --region <% .Region %> --stack-name <% .RoleStack %> --query 'Stacks[0].Outputs'
#
# CloudFormation creates the app's resources with the deploy role's
# credentials: the role may use the services below only through
# CloudFormation. A stage that uses another service needs it added to
# AppResourcesThroughCloudFormation.
AWSTemplateFormatVersion: "2010-09-09"
Description: GitHub Actions roles of app <% .App %> (<% .Repository %>), written by framework generate-pipeline

Parameters:
  ExistingOIDCProviderArn:
    Type: String
    Default: ""
    Description: ARN of the account's GitHub OIDC provider (token.actions.githubusercontent.com) when it has one; empty creates it.

Conditions:
  CreateOIDCProvider: !Equals [!Ref ExistingOIDCProviderArn, ""]

Resources:
  GitHubOIDCProvider:
    Type: AWS::IAM::OIDCProvider
    Condition: CreateOIDCProvider
    Properties:
      Url: https://token.actions.githubusercontent.com
      ClientIdList:
        - sts.amazonaws.com
      ThumbprintList:
        - 6938fd4d98bab03faadb97b34396831e3780aea1
        - 1c58a3a8518e8759bf075b76b750d4f2df264fcd

  DeployRole:
    Type: AWS::IAM::Role
    Properties:
      Description: framework deploy of <% .DeployStack %> from pushes to <% .Branch %> of <% .Repository %>
      MaxSessionDuration: 3600
      AssumeRolePolicyDocument:
        Version: "2012-10-17"
        Statement:
          - Effect: Allow
            Principal:
              Federated: !If [CreateOIDCProvider, !Ref GitHubOIDCProvider, !Ref ExistingOIDCProviderArn]
            Action: sts:AssumeRoleWithWebIdentity
            Condition:
              StringEquals:
                token.actions.githubusercontent.com:aud: sts.amazonaws.com
                token.actions.githubusercontent.com:sub: <% .DeploySubject %>
      Policies:
        - PolicyName: deploy
          PolicyDocument:
            Version: "2012-10-17"
            Statement:
              - Sid: AppStacks
                Effect: Allow
                Action: cloudformation:*
                Resource:
                  - !Sub arn:${AWS::Partition}:cloudformation:${AWS::Region}:${AWS::AccountId}:stack/<% .DeployStack %>/*
                  - !Sub arn:${AWS::Partition}:cloudformation:${AWS::Region}:${AWS::AccountId}:stack/<% .AssetsStack %>/*
              - Sid: ListStacks
                Effect: Allow
                Action: cloudformation:ListStacks
                Resource: "*"
              - Sid: NoImportOfOtherResources
                Effect: Deny
                Action: cloudformation:CreateChangeSet
                Resource: "*"
                Condition:
                  "Null":
                    cloudformation:ImportResourceTypes: "false"
              - Sid: Assets
                Effect: Allow
                Action:
                  - s3:GetObject
                  - s3:PutObject
                Resource: !Sub arn:${AWS::Partition}:s3:::<% .AssetsBucket %>/*
              - Sid: AssetsBucket
                Effect: Allow
                Action:
                  - s3:ListBucket
                  - s3:GetBucketLocation
                Resource: !Sub arn:${AWS::Partition}:s3:::<% .AssetsBucket %>
              - Sid: StackRoles
                Effect: Allow
                Action:
                  - iam:CreateRole
                  - iam:DeleteRole
                  - iam:GetRole
                  - iam:UpdateRole
                  - iam:UpdateRoleDescription
                  - iam:UpdateAssumeRolePolicy
                  - iam:PutRolePolicy
                  - iam:GetRolePolicy
                  - iam:DeleteRolePolicy
                  - iam:AttachRolePolicy
                  - iam:DetachRolePolicy
                  - iam:ListRolePolicies
                  - iam:ListAttachedRolePolicies
                  - iam:TagRole
                  - iam:UntagRole
                  - iam:ListRoleTags
                Resource: !Sub arn:${AWS::Partition}:iam::${AWS::AccountId}:role/<% .DeployStack %>-*
                Condition:
                  ForAnyValue:StringEquals:
                    aws:CalledVia: cloudformation.amazonaws.com
              - Sid: PassStackRoles
                Effect: Allow
                Action: iam:PassRole
                Resource: !Sub arn:${AWS::Partition}:iam::${AWS::AccountId}:role/<% .DeployStack %>-*
              - Sid: AppResourcesThroughCloudFormation
                Effect: Allow
                Action:
                  - lambda:*
                  - apigateway:*
                  - logs:*
                  - dynamodb:*
                  - sqs:*
                  - sns:*
                  - s3:*
                  - events:*
                  - kms:*
                  - ssm:*
                  - secretsmanager:*
                  - acm:DescribeCertificate
                  # An EDGE custom domain (api_gateway_custom_domain) is a CloudFront distribution.
                  - cloudfront:UpdateDistribution
                  - route53:GetHostedZone
                  - route53:ListHostedZonesByName
                  - route53:ChangeResourceRecordSets
                  - route53:ListResourceRecordSets
                  - route53:GetChange
                Resource: "*"
                Condition:
                  ForAnyValue:StringEquals:
                    aws:CalledVia: cloudformation.amazonaws.com

  DiffRole:
    Type: AWS::IAM::Role
    Properties:
      Description: framework diff of <% .DiffStack %> from pull requests of <% .Repository %> (read-only)
      MaxSessionDuration: 3600
      AssumeRolePolicyDocument:
        Version: "2012-10-17"
        Statement:
          - Effect: Allow
            Principal:
              Federated: !If [CreateOIDCProvider, !Ref GitHubOIDCProvider, !Ref ExistingOIDCProviderArn]
            Action: sts:AssumeRoleWithWebIdentity
            Condition:
              StringEquals:
                token.actions.githubusercontent.com:aud: sts.amazonaws.com
                token.actions.githubusercontent.com:sub: <% .DiffSubject %>
      Policies:
        - PolicyName: diff
          PolicyDocument:
            Version: "2012-10-17"
            Statement:
              - Sid: ReadStackAndChangeSets
                Effect: Allow
                Action:
                  - cloudformation:DescribeStacks
                  - cloudformation:DescribeStackEvents
                  - cloudformation:DescribeStackResources
                  - cloudformation:ListStackResources
                  - cloudformation:GetTemplate
                  - cloudformation:GetTemplateSummary
                  - cloudformation:CreateChangeSet
                  - cloudformation:DescribeChangeSet
                  - cloudformation:DeleteChangeSet
                  - cloudformation:ListChangeSets
                  # The change set carries the stack's tags (config.json's tags).
                  - cloudformation:TagResource
                Resource:
                  - !Sub arn:${AWS::Partition}:cloudformation:${AWS::Region}:${AWS::AccountId}:stack/<% .DiffStack %>/*
              - Sid: ListStacks
                Effect: Allow
                Action: cloudformation:ListStacks
                Resource: "*"
              - Sid: NoImportOfOtherResources
                Effect: Deny
                Action: cloudformation:CreateChangeSet
                Resource: "*"
                Condition:
                  "Null":
                    cloudformation:ImportResourceTypes: "false"
              - Sid: ReadAssets
                Effect: Allow
                Action: s3:GetObject
                Resource: !Sub arn:${AWS::Partition}:s3:::<% .AssetsBucket %>/*
              - Sid: LargeTemplates
                Effect: Allow
                Action: s3:PutObject
                Resource: !Sub arn:${AWS::Partition}:s3:::<% .AssetsBucket %>/templates/<% .DiffStack %>-*
              - Sid: AssetsBucket
                Effect: Allow
                Action:
                  - s3:ListBucket
                  - s3:GetBucketLocation
                Resource: !Sub arn:${AWS::Partition}:s3:::<% .AssetsBucket %>

Outputs:
  DeployRoleArn:
    Description: The deploy role's ARN, the value of the repository variable <% .DeployVar %>
    Value: !GetAtt DeployRole.Arn
  DiffRoleArn:
    Description: The diff role's ARN, the value of the repository variable <% .DiffVar %>
    Value: !GetAtt DiffRole.Arn
`
